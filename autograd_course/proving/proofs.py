"""The evidence contract's proofs: what evidence proves each Stage, as predicates on a summary.

What each kind of evidence shows per stage is public (every exercise's intro shows the table,
autograd_instructor/challenge/contract.py renders it): the grader judges a named stage with it, and a
graded notebook's own check tells a learner whose real evidence does not prove the stage they named,
never which stage the code fails at (that stays the grader's: the catalogue knows each bug's stage).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

from autograd_course.proving.kinds import NOT_RECORDED, frozen_in
from autograd_course.proving.trace import BrokenTrace
from helpers.thresholds import EXPLODING, VANISHING

__all__ = [
    "PROOFS",
    "Proof",
    "accepted",
    "also_proves",
    "proves",
    "unproven",
    "unrecorded_error",
    "unrecorded_meaning",
]


_GRAD_REPORTS = ("GradientReport", "GradClassification")


@dataclass(frozen=True)
class Proof:
    """One kind of evidence that proves a stage, and the test it must pass (after being matched)."""

    kind: str  # what the learner passes, as the summary names it
    shows: str  # what it must show, for the learner
    test: Callable[[dict, BrokenTrace], bool]

    def __repr__(self) -> str:
        return f"Proof({self.kind}: {self.shows})"


def _frozen_names(trace: BrokenTrace) -> set[str]:
    return {n for n in trace.names if not trace.requires_grad[n]}


def _stuck_names(trace: BrokenTrace) -> set[str]:
    return {n for n in trace.names if trace.requires_grad[n] and not trace.in_optimizer[n]}


def _grad_sizes(s: dict) -> list[float] | None:
    rows = s["gradients"]["rows"] if s["type"] == "StepReport" else s.get("rows")
    if s["type"] == "number":
        return [s["value"]]
    if rows is None or any(r.get("norm") is None for r in rows):
        return None
    return [r["norm"] for r in rows]


def _vanishing_or_exploding(s: dict, trace: BrokenTrace) -> bool:
    sizes = _grad_sizes(s)
    return bool(sizes) and (max(sizes) <= VANISHING or max(sizes) > EXPLODING)


def _grows(s: dict, trace: BrokenTrace) -> bool:
    items = s.get("items", [])
    sizes = [_grad_sizes(i) for i in items]
    if len(items) < 2 or any(not z for z in sizes):
        return False
    totals = [sum(z) for z in sizes]  # type: ignore[arg-type]
    return all(b > a * (1 + 1e-6) for a, b in itertools.pairwise(totals))


def _items(s: dict, kind: str) -> list[dict]:
    return [i for i in s.get("items", []) if i.get("type") == kind]


def _answers(s: dict) -> set[bool]:
    return {i["value"] for i in _items(s, "answer")}


def unrecorded_error(s: dict) -> bool:
    return any(NOT_RECORDED in i["message"] for i in _items(s, "error"))


def _is_loss(s: dict) -> bool:
    return s["shape"] in ([], [16, 1])


def _loss_recorded(s: dict) -> bool:
    return any(i["requires_grad"] and i["grad_fn"] and _is_loss(i) for i in _items(s, "TensorInfo"))


# Nothing recorded: the loss of the detached output (A) and the loss computed under no_grad (F) make
# the same error. What tells them apart is compute_loss called on its own, with grad mode on.
_LOSS_NOT_IN_GRAPH = (
    Proof(
        "TensorInfo",
        "debug_tensor of the loss compute_loss(model, inputs, targets) returns on its own: "
        "requires_grad=False and no grad_fn",
        lambda s, t: (
            not s["requires_grad"] and s["grad_fn"] is None and _is_loss(s) and not t.direct_recorded
        ),
    ),
    Proof(
        "AutogradGraph",
        "autograd_graph(compute_loss(model, inputs, targets), model) is empty: nothing was recorded",
        lambda s, t: s["empty"] and not t.direct_recorded,
    ),
    Proof(
        "list",
        "[the RuntimeError the broken step raises ('does not require grad'), torch.is_grad_enabled()]: "
        "nothing was recorded although grad mode is on",
        lambda s, t: unrecorded_error(s) and _answers(s) == {True} and t.direct_recorded is False,
    ),
)
_GRAD_MODE_DISABLED = (
    Proof(
        "list",
        "[the RuntimeError the broken step raises ('does not require grad'), debug_tensor of the loss "
        "compute_loss returns on its own (it has a grad_fn)]: recorded outside the step, not inside it",
        lambda s, t: unrecorded_error(s) and _loss_recorded(s) and bool(t.direct_recorded),
    ),
    Proof(
        "list",
        "[the RuntimeError the broken step raises, torch.is_grad_enabled() asked where the step computes "
        "its loss (False)]",
        lambda s, t: unrecorded_error(s) and _answers(s) == {False} and bool(t.direct_recorded),
    ),
)


def _lists_unregistered(summary: dict, trusted: dict) -> bool:
    return any(r["status"] == "UNREGISTERED" for r in summary["rows"])


PROOFS: dict[str, tuple[Proof, ...]] = {
    "GRAD_MODE_DISABLED": _GRAD_MODE_DISABLED,
    "FORWARD_NON_FINITE": (
        Proof("NonFiniteError", "assert_finite raised on a tensor of the forward pass", lambda s, t: True),
        Proof(
            "TensorInfo",
            "debug_tensor of a forward tensor or the loss counts NaN or Inf",
            lambda s, t: (s["nan"] or 0) + (s["inf"] or 0) > 0,
        ),
    ),
    "LOSS_NOT_IN_GRAPH": _LOSS_NOT_IN_GRAPH,
    "PARAMS_FROZEN": (
        Proof(
            "ParameterReport",
            "parameter_report(model) lists the parameters that do not require grad",
            lambda s, t: bool(_frozen_names(t)) and frozen_in(s["rows"]) == _frozen_names(t),
        ),
        Proof(
            "GradientReport",
            "gradient_report / classify_parameter_gradients marks them FROZEN",
            lambda s, t: bool(_frozen_names(t)) and frozen_in(s["rows"]) == _frozen_names(t),
        ),
        Proof(
            "AutogradGraph",
            "autograd_graph(loss, model) has no leaf for them",
            lambda s, t: not s["empty"] and bool(_frozen_names(t)),
        ),
        Proof(
            "StepReport",
            "debug_training_step marks them FROZEN",
            lambda s, t: bool(_frozen_names(t)) and frozen_in(s["gradients"]["rows"]) == _frozen_names(t),
        ),
    ),
    "BACKWARD_FAILED": (
        Proof(
            "error",
            "the autograd error the broken step raises (in-place change, freed graph, ...)",
            lambda s, t: NOT_RECORDED not in s["message"],
        ),
    ),
    "GRAD_MISSING": (
        Proof(
            "GradientReport",
            "gradient_report after a broken step: trainable parameters with status NO_GRAD",
            lambda s, t: any(r["status"] == "NO_GRAD" for r in s["rows"]),
        ),
    ),
    "GRAD_NON_FINITE": (
        Proof(
            "GradientReport",
            "gradient_report after a broken step: gradients that count NaN or Inf",
            lambda s, t: any((r["nan"] or 0) + (r["inf"] or 0) > 0 for r in s["rows"]),
        ),
    ),
    "GRAD_MAGNITUDE": (
        Proof(
            "GradientReport",
            "gradient_report after a broken step: every gradient's norm below 1e-12, or one above 1e3",
            _vanishing_or_exploding,
        ),
        Proof(
            "number",
            "grad_norm(model) after a broken step: below 1e-12 or above 1e3",
            _vanishing_or_exploding,
        ),
        Proof(
            "StepReport", "debug_training_step's gradients: vanishing or exploding", _vanishing_or_exploding
        ),
    ),
    "NOT_IN_OPTIMIZER": (
        Proof(
            "GradClassification",
            "classify_parameter_gradients marks exactly those parameters NOT_IN_OPTIMIZER",
            lambda s, t: (
                bool(_stuck_names(t))
                and {r["name"] for r in s["rows"] if r["status"] == "NOT_IN_OPTIMIZER"} == _stuck_names(t)
            ),
        ),
        Proof(
            "ParameterChanges",
            "parameter_changes around a broken step: exactly those parameters did not move",
            lambda s, t: (
                bool(_stuck_names(t))
                and {r["name"] for r in s["rows"] if not r["changed"]} == _stuck_names(t)
            ),
        ),
    ),
    "GRADS_ACCUMULATING": (
        Proof(
            "list",
            "a list of grad_norm(model) values or gradient reports from consecutive broken steps "
            "that grows from every step to the next",
            _grows,
        ),
    ),
    "PARAMS_NOT_UPDATED": (
        Proof(
            "ParameterChanges",
            "parameter_changes around a broken step: no parameter moved",
            lambda s, t: not any(r["changed"] for r in s["rows"]),
        ),
        Proof(
            "StepReport",
            "debug_training_step: no parameter moved",
            lambda s, t: not any(r["changed"] for r in s["changes"]["rows"]),
        ),
    ),
    "PARAMS_UNREGISTERED": (
        *(
            Proof(kind, f"{name} lists a tensor as UNREGISTERED", _lists_unregistered)
            for kind, name in zip(_GRAD_REPORTS, ("gradient_report", "classify_parameter_gradients"))
        ),
    ),
}


def _accepts(proof: Proof, s: dict) -> bool:
    kind = s["type"]
    if proof.kind == "GradientReport":
        return kind in _GRAD_REPORTS
    return proof.kind == kind


def proves(stage: str, s: dict, trace: BrokenTrace) -> bool:
    """Some proof of the stage accepts the evidence, or (for a list) one of its items on its own."""
    if any(_accepts(p, s) and p.test(s, trace) for p in PROOFS.get(stage, ())):
        return True
    return s["type"] == "list" and any(proves(stage, i, trace) for i in s["items"] if i["type"] != "list")


def unrecorded_meaning(stage: str, summary: dict) -> str | None:
    """What a 'does not require grad' error means, when the learner named a stage it does not prove."""
    items = summary["items"] if summary["type"] == "list" else [summary]
    if stage in ("LOSS_NOT_IN_GRAPH", "GRAD_MODE_DISABLED") or not any(unrecorded_error(i) for i in items):
        return None
    return (
        f"the error you caught does not prove Stage.{stage}: 'does not require grad' means backward found no "
        "graph to walk, because nothing was recorded for the loss. That happens before backward runs: "
        "which earlier stage stops the recording?"
    )


def also_proves(stage: str, s: dict, trace: BrokenTrace) -> str | None:
    """Another stage that an item of a list proves on its own (None for a focused proof)."""
    if s["type"] != "list":
        return None
    items = [i for i in s["items"] if i["type"] not in ("list", "answer", "Diagnosis")]
    return next(
        (other for other in PROOFS if other != stage and any(proves(other, i, trace) for i in items)), None
    )


def accepted(stage: str) -> str:
    """What the contract accepts as proof of a stage, as the verdicts say it."""
    return "; ".join(p.shows for p in PROOFS.get(stage, ()))


def unproven(stage: str, summary: dict, trace: BrokenTrace, described: str) -> str | None:
    """Why real evidence (described, as the verdicts say it) does not prove the stage named by this
    contract, or None when it does. Whether the code fails at that stage is not this contract's."""
    if not proves(stage, summary, trace):
        contract = f"for that stage the contract accepts: {accepted(stage)}"
        return unrecorded_meaning(stage, summary) or f"{described} does not prove Stage.{stage}; {contract}"
    if pile := also_proves(stage, summary, trace):
        return (
            f"{described} also proves Stage.{pile}: a proof shows the one failure you name, so keep only "
            "the observations that prove yours (a pile of every report proves nothing)"
        )
    return None
