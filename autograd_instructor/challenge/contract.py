"""The evidence contract: what counts as proof of each Stage, written once and used by every exercise.

Part 1 is judged in two steps, the same way in every exercise: the evidence must be real (its
numbers match a trusted run of the learner's own broken code, see reference.py) and it must show
the failure of the stage the learner names (PROOFS below). `contract_markdown()` renders the same
table into every exercise's intro and the README.
"""

from __future__ import annotations

from autograd_course.proving.kinds import is_real, real_steps, untied
from autograd_course.proving.proofs import PROOFS, Proof, unproven
from autograd_instructor.challenge.catalogue import BUGS
from autograd_instructor.challenge.evidence import KINDS, RAISED_BY_CODE, describe
from autograd_instructor.challenge.reference import REFERENCE_STEPS, trace_broken
from autograd_instructor.challenge.variants import Variant
from helpers import Stage

__all__ = ["PROOFS", "Proof", "contract_markdown", "judge_evidence", "real_steps"]


def contract_markdown() -> str:
    """The contract as a Markdown table (exercise intros and the README show this text)."""
    lines = ["| Stage | Evidence that proves it |", "|---|---|"]
    for stage, proofs in PROOFS.items():
        lines.append(f"| `{stage}` | " + "; ".join(p.shows for p in proofs) + " |")
    return "\n".join(lines)


# ---- is the evidence real (proving/kinds.py: is_real), and does it prove the stage? -----------------


def judge_evidence(variant: Variant, seed: int, stage: str | None, summary: dict) -> tuple[bool, str]:
    """(correct, message) for part 1: the named stage, proven by real evidence, is where the code fails."""
    try:
        return _judge(variant, seed, stage, summary)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return False, "the evidence summary could not be read; use a report, a list of them, or an error"


_RUN_IT = (
    "evidence must come from running this notebook's broken code, e.g. `with expect_error(RuntimeError) "
    "as caught: broken_step(model, optimizer, inputs, targets)`, then `evidence = caught.exception`"
)


def _refusal(summary: dict) -> str | None:
    """Why evidence is refused before it is matched: typed by hand, or the doctor's verdict alone."""
    items = summary["items"] if summary.get("type") == "list" else [summary]
    for item in items:
        if item.get("type") in ("error", "NonFiniteError") and item.get("origin") not in RAISED_BY_CODE:
            return f"{describe(item)} was not raised by this notebook's code (typed by hand?): {_RUN_IT}"
        if item.get("type") == "number" and item.get("value") == 0:
            return (
                "the number 0 is what a zero gradient norm is on every run of any code, typed or measured, "
                "so it cannot show that this run produced it: keep the object your number came from, "
                "which holds values only this run has"
            )
    kinds = {i.get("type") for i in items}
    if kinds <= {"Diagnosis", "answer"} and "Diagnosis" in kinds:
        return (
            "a Diagnosis is the doctor's verdict, not your proof: show the failure with the plain tools "
            "(requires_grad and grad_fn, .grad, grad norms, finite checks, parameter changes, the "
            "optimizer's groups, grad mode); diagnose may confirm it, in a list after your proof"
        )
    if kinds == {"answer"}:
        return (
            "True or False alone could be typed by hand: put the checklist's answer in a list with the error "
            "or report it explains"
        )
    return None


def _judge(variant: Variant, seed: int, stage: str | None, summary: dict) -> tuple[bool, str]:
    if stage is None or stage not in Stage.__members__:
        return False, "`stage` must be one of the helpers.Stage members, e.g. Stage.OK"
    kind = summary.get("type")
    described = describe(summary)
    if kind != "list" and kind not in KINDS:
        return False, f"the evidence is {described}; see the evidence contract for what counts as proof"
    if why := _refusal(summary):
        return False, why
    trace = trace_broken(variant, seed)
    real = is_real(summary, trace)
    if not real:
        return False, untied(summary) or (
            f"the evidence ({described}) does not match what this notebook's broken code produces in its "
            f"first {REFERENCE_STEPS} steps with seed={seed}: compute it on a fresh "
            "broken_setup(seed, device)"
        )
    if why := unproven(stage, summary, trace, described):
        return False, why
    if stage != BUGS[variant.bug].stage:
        return (
            False,
            f"{described} fits Stage.{stage}, but this code does not fail there: read the code again",
        )
    return True, f"Stage.{stage}, proven by {described}"
