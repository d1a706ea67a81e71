"""Part 1: turn the learner's evidence into plain data, then judge it against a trusted broken run.

`summarize` runs in the learner's kernel and only reads the evidence object; `judge_stage` runs
wherever the verdict is computed (the kernel for feedback, the grader's own process for grades)
and trusts nothing in the summary it has not matched against `trace_broken`.
"""

from __future__ import annotations

from typing import Any

import torch

from autograd_course.challenge.catalogue import BUGS
from autograd_course.challenge.reference import BrokenTrace, StepRecord, close, trace_broken
from helpers import (
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
    if isinstance(evidence, ExpectedError):
        caught = evidence.exception
        return {"type": "error", "message": "" if caught is None else str(caught)}
    if isinstance(evidence, BaseException):
        return {"type": "error", "message": str(evidence)}
    if isinstance(evidence, torch.Tensor) and evidence.numel() == 1:
        return {"type": "number", "value": float(evidence.detach())}
    if isinstance(evidence, (int, float)) and not isinstance(evidence, bool):
        return {"type": "number", "value": float(evidence)}
    return {"type": "unknown", "name": type(evidence).__name__}


# ---- matching a summary against the trusted broken run ------------------------------------------------


def _rows_match_grads(rows: list[dict], step: StepRecord) -> bool:
    if sorted(r["name"] for r in rows) != sorted(step.grads):
        return False
    for r in rows:
        ref = step.grads[r["name"]]
        if (ref is None) != (r["max_abs"] is None):
            return False
        if ref is not None and not close(r["max_abs"], ref["max_abs"]):
            return False
    return True


def _changes_match(rows: list[dict], step: StepRecord) -> bool:
    if sorted(r["name"] for r in rows) != sorted(step.changed):
        return False
    return all(
        r["changed"] == step.changed[r["name"]]
        and close(r["max_delta"], step.max_delta[r["name"]], atol=1e-9)
        for r in rows
    )


def _tensor_matches(s: dict, seen: dict) -> bool:
    return (
        s.get("shape") == seen["shape"]
        and s.get("nan") == seen["nan"]
        and s.get("inf") == seen["inf"]
        and all(close(s.get(k), seen[k]) for k in ("min", "max", "mean"))
    )


def _nonfinite_matches(s: dict, seen: dict) -> bool:
    if (s["nan"], s["inf"]) != (seen["nan"], seen["inf"]) or s["nan"] + s["inf"] == 0:
        return False
    sample = seen["nonfinite_sample"][: len(s["sample"])]
    return len(sample) == len(s["sample"]) and all(close(a, b) for a, b in zip(s["sample"], sample))


def _plain(message: str) -> str:
    """An error message without the device in tensor type names (torch.cuda.FloatTensor)."""
    return message.replace("torch.cuda.", "torch.").strip()


def _steps_matching(s: dict, trace: BrokenTrace) -> list[int]:
    """Indices of the broken steps this single (non-list) evidence summary could come from."""
    kind = s["type"]
    hits = []
    for i, step in enumerate(trace.steps):
        if kind in ("GradientReport", "GradClassification"):
            ok = _rows_match_grads(s["rows"], step)
        elif kind == "ParameterChanges":
            ok = _changes_match(s["rows"], step)
        elif kind == "StepReport":
            ok = (
                close(s["loss"], step.loss)
                and _rows_match_grads(s["gradients"]["rows"], step)
                and _changes_match(s["changes"]["rows"], step)
            )
        elif kind == "TensorInfo":
            ok = any(_tensor_matches(s, seen) for seen in step.tensors)
        elif kind == "NonFiniteError":
            ok = any(_nonfinite_matches(s, seen) for seen in step.tensors)
        elif kind == "error":
            ok = step.error is not None and _plain(s["message"]) == _plain(step.error)
        elif kind == "number":
            ok = close(s["value"], step.grad_norm)
        elif kind == "ParameterReport":
            ok = i == 0 and [(r["name"], r["shape"], r["requires_grad"]) for r in s["rows"]] == [
                (n, trace.shapes[n], trace.requires_grad[n]) for n in trace.names
            ]
        else:
            ok = False
        if ok:
            hits.append(i)
    return hits


def _describe(s: dict) -> str:
    kind = s["type"]
    if kind in ("GradientReport", "GradClassification"):
        return f"a {kind} with statuses " + ", ".join(f"{r['name']}={r['status']}" for r in s["rows"])
    if kind == "ParameterChanges":
        moved = [r["name"] for r in s["rows"] if r["changed"]]
        return f"a ParameterChanges where {len(moved)} of {len(s['rows'])} parameters changed"
    if kind == "ParameterReport":
        frozen = [r["name"] for r in s["rows"] if not r["requires_grad"]]
        return f"a ParameterReport with frozen parameters {frozen}"
    if kind == "TensorInfo":
        return (
            f"a TensorInfo of shape {tuple(s['shape'])}, requires_grad={s['requires_grad']}, "
            f"grad_fn={s['grad_fn']}, nan={s['nan']}, inf={s['inf']}"
        )
    if kind == "NonFiniteError":
        return f"a NonFiniteError with nan={s['nan']}, inf={s['inf']}"
    if kind == "error":
        first = s["message"].strip().splitlines()[0] if s["message"].strip() else "(nothing caught)"
        return f"the error {first[:90]!r}"
    if kind == "number":
        return f"the number {s['value']:.4g}"
    if kind == "list":
        kinds = sorted({i["type"] for i in s["items"]})
        return f"a list of {len(s['items'])} ({', '.join(kinds)}) from consecutive steps"
    if kind == "StepReport":
        return "a StepReport"
    return f"an object of type {s.get('name', kind)} the checks cannot read"


def _frozen(rows: list[dict], names: set[str]) -> bool:
    return {r["name"] for r in rows if not r.get("requires_grad", r.get("status") != "FROZEN")} == names


def _shows_failure(bug: str, s: dict) -> bool:
    """Whether this (already matched) evidence shows the failure of this bug."""
    kind = s["type"]
    fc1, fc2 = {"fc1.weight", "fc1.bias"}, {"fc2.weight", "fc2.bias"}
    status = {r["name"]: r.get("status") for r in s.get("rows", [])}
    if bug in ("A", "F"):
        return (
            kind == "TensorInfo"
            and not s["requires_grad"]
            and s["grad_fn"] is None
            and s["shape"] in ([], [16, 1])
        )
    if bug == "B":
        return kind in ("ParameterReport", "GradientReport", "GradClassification") and _frozen(s["rows"], fc1)
    if bug in ("C", "H"):
        stuck = fc1 if bug == "C" else fc2
        if kind == "GradClassification":
            return {n for n, v in status.items() if v == "NOT_IN_OPTIMIZER"} == stuck
        if kind == "ParameterChanges":
            return {r["name"] for r in s["rows"] if not r["changed"]} == stuck
        return False
    if bug == "D":
        return kind == "list" and len(s["items"]) >= 2
    if bug in ("E", "J"):
        return (kind == "NonFiniteError") or (kind == "TensorInfo" and (s["nan"] or 0) + (s["inf"] or 0) > 0)
    if bug == "G":
        return kind == "ParameterChanges" and not any(r["changed"] for r in s["rows"])
    if bug == "I":
        return kind == "error" and "inplace" in s["message"]
    return False


def _list_matches(s: dict, trace: BrokenTrace) -> bool:
    """A list of evidence from consecutive broken steps, in order."""
    items = s["items"]
    if len(items) < 2 or any(i["type"] == "list" for i in items):
        return False
    starts = _steps_matching(items[0], trace)
    return any(all(k + j in _steps_matching(item, trace) for j, item in enumerate(items)) for k in starts)


def stage_name(stage: Any) -> str | None:
    """The member name of a helpers.Stage answer, or None for anything else."""
    return stage.name if isinstance(stage, Stage) else None


def judge_stage(bug: str, seed: int, stage: str | None, summary: dict) -> tuple[bool, str]:
    """(correct, message) for part 1, given the stage's name and the evidence summary."""
    try:
        return _judge(bug, seed, stage, summary)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return False, "the evidence summary could not be read; use a report or error from the helpers"


def _judge(bug: str, seed: int, stage: str | None, summary: dict) -> tuple[bool, str]:
    trace = trace_broken(bug, seed)
    if stage is None or stage not in Stage.__members__:
        return False, "`stage` must be one of the helpers.Stage members, e.g. Stage.OK"
    kind = summary.get("type")
    described = _describe(summary)
    if kind == "unknown":
        return False, f"the evidence is {described}; use a report or error from the helpers"
    matched = _list_matches(summary, trace) if kind == "list" else bool(_steps_matching(summary, trace))
    if not matched:
        return False, (
            f"the evidence ({described}) does not match what the broken setup produces in its first "
            f"steps with seed={seed}; compute it on broken_setup(seed, device) and broken_step"
        )
    if not _shows_failure(bug, summary):
        return False, f"the evidence is real but does not show where this step fails: you found {described}"
    if stage != BUGS[bug].stage.name:
        return False, f"your evidence ({described}) does not show a failure at Stage.{stage}"
    return True, f"Stage.{stage}, shown by {described}"
