"""Part 1: turn the learner's evidence into plain data (JSON-able) in the learner's kernel.

`summarize` only reads the evidence object; the verdict is computed elsewhere (contract.py) from
the summary alone, matched against a trusted run of the broken code.
"""

from __future__ import annotations

from typing import Any

import torch

from helpers import (
    AutogradGraph,
    Diagnosis,
    ExpectedError,
    GradientReport,
    NonFiniteError,
    ParameterChanges,
    ParameterReport,
    Stage,
    StepReport,
    TensorInfo,
)

__all__ = ["judge_stage", "stage_name", "summarize"]


def _num(v: Any) -> float | None:
    return None if v is None else float(v)


def summarize(evidence: Any) -> dict:
    """Plain data (JSON-able) describing one evidence object from the helpers."""
    if isinstance(evidence, (list, tuple)):
        return {"type": "list", "items": [summarize(e) for e in evidence]}
    if isinstance(evidence, Diagnosis):
        return {
            "type": "Diagnosis",
            "stage": evidence.stage.name,
            "step": evidence.step,
            "losses": [_num(v) for v in evidence.losses],
        }
    if isinstance(evidence, AutogradGraph):
        return {
            "type": "AutogradGraph",
            "empty": evidence.root is None,
            "leaves": sorted(n.label for n in evidence.leaves),
        }
    if isinstance(evidence, StepReport):
        return {
            "type": "StepReport",
            "loss": _num(evidence.loss),
            "gradients": summarize(evidence.classification),
            "changes": summarize(evidence.changes),
        }
    if isinstance(evidence, GradientReport):  # GradClassification is a GradientReport
        return {
            "type": type(evidence).__name__,
            "rows": [
                {
                    "name": r.name,
                    "status": r.status.name,
                    "max_abs": _num(r.max_abs),
                    "nan": r.nan,
                    "inf": r.inf,
                }
                for r in evidence.rows
            ],
        }
    if isinstance(evidence, ParameterChanges):
        return {
            "type": "ParameterChanges",
            "rows": [
                {"name": r.name, "changed": r.changed, "max_delta": _num(r.max_delta)} for r in evidence.rows
            ],
        }
    if isinstance(evidence, ParameterReport):
        return {
            "type": "ParameterReport",
            "rows": [
                {"name": r.name, "shape": list(r.shape), "requires_grad": r.requires_grad}
                for r in evidence.rows
            ],
        }
    if isinstance(evidence, TensorInfo):
        return {
            "type": "TensorInfo",
            "shape": list(evidence.shape),
            "requires_grad": evidence.requires_grad,
            "grad_fn": evidence.grad_fn,
            "min": _num(evidence.min),
            "max": _num(evidence.max),
            "mean": _num(evidence.mean),
            "nan": evidence.nan,
            "inf": evidence.inf,
        }
    if isinstance(evidence, NonFiniteError):
        return {
            "type": "NonFiniteError",
            "nan": evidence.nan,
            "inf": evidence.inf,
            "sample": list(evidence.sample),
        }
    if isinstance(evidence, ExpectedError):  # what `with expect_error(...) as caught` caught
        caught = evidence.exception
        return {"type": "error", "message": ""} if caught is None else summarize(caught)
    if isinstance(evidence, BaseException):
        return {"type": "error", "message": str(evidence)}
    if isinstance(evidence, torch.Tensor) and evidence.numel() == 1:
        return {"type": "number", "value": float(evidence.detach())}
    if isinstance(evidence, (int, float)) and not isinstance(evidence, bool):
        return {"type": "number", "value": float(evidence)}
    return {"type": "unknown", "name": type(evidence).__name__}


def stage_name(stage: Any) -> str | None:
    """The member name of a helpers.Stage answer, or None for anything else."""
    return stage.name if isinstance(stage, Stage) else None


def judge_stage(bug: str, seed: int, stage: str | None, summary: dict) -> tuple[bool, str]:
    """Legacy entry (the grader before C4): contract.judge_evidence on the bug's default variant."""
    from autograd_course.challenge.contract import judge_evidence
    from autograd_course.challenge.variants import Variant

    return judge_evidence(Variant(bug), seed, stage, summary)
