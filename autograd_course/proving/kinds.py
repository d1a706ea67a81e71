"""Part 1's evidence kinds, one registry: how each kind is matched against a run and described.

A kind of evidence is declared once: its plain data (JSON-able), made by `proofrun.summarize` (the
same code runs in the grader's sandbox and in the learner's kernel), and in KINDS how a summary is
told real (it matches one step of a trusted run of the broken code, proving/trace.py) and how a message
describes it. `is_real` applies it to a whole answer. The grader uses it against its own run of each
hidden variant; a graded notebook's check uses it against a run of the learner's own code (it names no
stage: what each kind proves, per stage, is challenge/contract.py's PROOFS, which stays the grader's).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from autograd_course.proving import proofrun
from autograd_course.proving.trace import BrokenTrace, StepRecord, close

__all__ = [
    "KINDS",
    "NOT_RECORDED",
    "RAISED_BY_CODE",
    "Kind",
    "describe",
    "frozen_in",
    "is_real",
    "real_steps",
    "untied",
]

NOT_RECORDED = "does not require grad"  # what backward() says when the loss has no graph
RAISED_BY_CODE = proofrun.RAISED_BY  # where an exception must come from to be evidence


@dataclass(frozen=True)
class Kind:
    """One kind of evidence: the objects it reads, their summary, the realness test, the description."""

    name: str
    matches: Callable[[dict, BrokenTrace, int], bool]  # does the summary match step i of the trusted run?
    describe: Callable[[dict], str]

    def __repr__(self) -> str:
        return f"Kind({self.name})"


def _num(v: Any) -> float | None:
    return None if v is None else float(v)


def _step(trace: BrokenTrace, i: int) -> StepRecord:
    return trace.steps[i]


def frozen_in(rows: list[dict]) -> set[str]:
    """The parameter names a report's rows show as not requiring grad."""
    return {r["name"] for r in rows if not r.get("requires_grad", r.get("status") != "FROZEN")}


# ---- per-kind realness: does the summary match what the trusted run produced? ----------------------


def _rows_match_grads(rows: list[dict], step: StepRecord) -> bool:
    if sorted(r["name"] for r in rows) != sorted(step.grads):
        return False
    for r in rows:
        ref = step.grads[r["name"]]
        if (ref is None) != (r["norm"] is None):
            return False
        if ref is not None and not close(r["norm"], ref["norm"]):
            return False
    # a gradient of exactly 0 is the same on every seed: the values of its tensor, beside it, are not
    zeros = [r for r in rows if r["norm"] == 0.0]
    moments = (step.norms_before, step.norms_after)
    return not zeros or any(_norms_match(zeros, norms, "value_norm") for norms in moments)


def _norms_match(rows: list[dict], norms: dict[str, float], key: str = "norm") -> bool:
    """Every row's value norm (under key) is the run's at one moment: what a report of this run's own
    model carries (names and shapes are the same on every seed, and a layer that never moves moves at
    no seed)."""
    return all(r["name"] in norms and close(r.get(key), norms[r["name"]]) for r in rows)


def _same_values(model: dict[str, float], norms: dict[str, float]) -> bool:
    """One model's value norms (by parameter name) are the run's at one moment, every parameter."""
    return set(model) == set(norms) and all(close(v, norms[n]) for n, v in model.items())


def _changes_match(rows: list[dict], step: StepRecord) -> bool:
    if sorted(r["name"] for r in rows) != sorted(step.changed):
        return False
    return _norms_match(rows, step.norms_after) and all(
        r["changed"] == step.changed[r["name"]]
        and close(r["max_delta"], step.max_delta[r["name"]], atol=1e-9)
        for r in rows
    )


def _has_leaves(item: dict) -> bool:
    return bool((item.get("lineage") or {}).get("leaves"))


def _same_lineage(s: dict, seen: dict) -> bool:
    """A non-finite tensor is alike on every run; what it was computed from (helpers/lineage.py) is not:
    the same operations from leaves with the same values. A tensor with no graph has none to match."""
    mine, theirs = s.get("lineage"), seen.get("lineage")
    if not mine or not theirs or not _has_leaves(s) or mine["ops"] != theirs["ops"]:
        return False
    pairs = list(zip(mine["leaves"], theirs["leaves"]))
    return len(mine["leaves"]) == len(theirs["leaves"]) and all(close(a, b) for a, b in pairs)


def _tensor_matches(s: dict, seen: dict) -> bool:
    if (s.get("nan") or 0) + (s.get("inf") or 0) and not _same_lineage(s, seen):
        return False
    return (
        s.get("shape") == seen["shape"]
        and s.get("requires_grad") == seen.get("requires_grad", s.get("requires_grad"))
        and s.get("nan") == seen["nan"]
        and s.get("inf") == seen["inf"]
        and all(close(s.get(k), seen[k]) for k in ("min", "max", "mean"))
    )


def _nonfinite_matches(s: dict, seen: dict) -> bool:
    if (s["nan"], s["inf"]) != (seen["nan"], seen["inf"]) or s["nan"] + s["inf"] == 0:
        return False
    if not _same_lineage(s, seen):
        return False
    sample = seen["nonfinite_sample"][: len(s["sample"])]
    return len(sample) == len(s["sample"]) and all(close(a, b) for a, b in zip(sample, s["sample"]))


def _plain(message: str) -> str:
    """An error message without the device in tensor type names (torch.cuda.FloatTensor)."""
    return message.replace("torch.cuda.", "torch.").strip()


def _error_matches(s: dict, trace: BrokenTrace, i: int) -> bool:
    """The run's error at step i, raised in the broken code while it held this run's model: a message is
    the same on every seed, the model's values (proofrun.models_where_raised) are not."""
    error = _step(trace, i).error
    if s.get("origin") != "broken code" or error is None or _plain(s["message"]) != _plain(error):
        return False
    moments = [norms for step in trace.steps[: i + 1] for norms in (step.norms_before, step.norms_after)]
    return any(_same_values(model, norms) for model in s.get("models", []) for norms in moments)


def _seen_at(trace: BrokenTrace, i: int) -> list[dict]:
    """The tensors of step i; for the first step also those of compute_loss called on its own."""
    return _step(trace, i).tensors + (trace.direct if i == 0 else [])


def _nonfinite_real(s: dict, trace: BrokenTrace, i: int) -> bool:
    return s.get("origin") in RAISED_BY_CODE and any(_nonfinite_matches(s, x) for x in _seen_at(trace, i))


def _diagnosis_matches(s: dict, trace: BrokenTrace, start: int) -> bool:
    losses = s.get("losses") or []
    if not losses or start + len(losses) > len(trace.steps):
        return False
    return all(close(v, trace.steps[start + i].loss) for i, v in enumerate(losses))


def _graph_matches(s: dict, trace: BrokenTrace, i: int) -> bool:
    step = _step(trace, i)
    if s["empty"]:
        return step.error is not None and NOT_RECORDED in step.error
    named = {leaf for leaf in s["leaves"] if leaf in trace.names}
    return step.error is None and named == {n for n in trace.names if trace.requires_grad[n]}


def _report_matches(s: dict, trace: BrokenTrace, i: int) -> bool:
    """The run's parameters as they were before step i (or after it: a report taken after a step)."""
    rows = [(r["name"], r["shape"], r["requires_grad"]) for r in s["rows"]]
    if rows != [(n, trace.shapes[n], trace.requires_grad[n]) for n in trace.names]:
        return False
    step = _step(trace, i)
    return _norms_match(s["rows"], step.norms_before) or _norms_match(s["rows"], step.norms_after)


def _step_report_matches(s: dict, trace: BrokenTrace, i: int) -> bool:
    step = _step(trace, i)
    return (
        close(s["loss"], step.loss)
        and _rows_match_grads(s["gradients"]["rows"], step)
        and _changes_match(s["changes"]["rows"], step)
    )


# ---- per-kind descriptions --------------------------------------------------------------------------


def _describe_error(s: dict) -> str:
    first = s["message"].strip().splitlines()[0] if s["message"].strip() else "(nothing caught)"
    return f"the error {first[:90]!r}"


def _describe_graph(s: dict) -> str:
    return "an empty AutogradGraph" if s["empty"] else f"an AutogradGraph with leaves {s['leaves']}"


def _describe_tensor(s: dict) -> str:
    return (
        f"a TensorInfo of shape {tuple(s['shape'])}, requires_grad={s['requires_grad']}, "
        f"grad_fn={s['grad_fn']}, nan={s['nan']}, inf={s['inf']}"
    )


def _describe_grads(name: str) -> Callable[[dict], str]:
    return lambda s: f"a {name} with statuses " + ", ".join(f"{r['name']}={r['status']}" for r in s["rows"])


def _describe_changes(s: dict) -> str:
    moved = [r["name"] for r in s["rows"] if r["changed"]]
    return f"a ParameterChanges where {len(moved)} of {len(s['rows'])} parameters changed"


def _grad_kind(name: str) -> Kind:
    return Kind(name, lambda s, t, i: _rows_match_grads(s["rows"], _step(t, i)), _describe_grads(name))


# The registry: how each kind of summary (proofrun.SUMMARIES makes them) is matched and described.
KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in [
        Kind("Diagnosis", _diagnosis_matches, lambda s: f"a Diagnosis naming Stage.{s['stage']}"),
        Kind("AutogradGraph", _graph_matches, _describe_graph),
        Kind("StepReport", _step_report_matches, lambda s: "a StepReport"),
        _grad_kind("GradClassification"),
        _grad_kind("GradientReport"),
        Kind("ParameterChanges", lambda s, t, i: _changes_match(s["rows"], _step(t, i)), _describe_changes),
        Kind(
            "ParameterReport",
            _report_matches,
            lambda s: f"a ParameterReport with frozen parameters {sorted(frozen_in(s['rows']))}",
        ),
        Kind(
            "TensorInfo",
            lambda s, t, i: any(_tensor_matches(s, seen) for seen in _seen_at(t, i)),
            _describe_tensor,
        ),
        Kind(
            "NonFiniteError",
            _nonfinite_real,
            lambda s: f"a NonFiniteError with nan={s['nan']}, inf={s['inf']}",
        ),
        Kind("error", _error_matches, _describe_error),
        Kind(
            "answer",  # a checklist question's answer, such as torch.is_grad_enabled()
            lambda s, t, i: False,  # True or False can be typed by hand: never real on its own
            lambda s: f"the answer {s['value']}",
        ),
        Kind(
            "number",
            # a norm of exactly 0 is the same on every seed, so it proves no run
            lambda s, t, i: s["value"] != 0 and close(s["value"], _step(t, i).grad_norm),
            lambda s: f"the number {s['value']:.4g}",
        ),
    ]
}


def describe(s: dict) -> str:
    """One phrase for a summary, as the verdict's message names it."""
    kind = s.get("type")
    if kind == "list":
        kinds = sorted({i["type"] for i in s["items"]})
        return f"a list of {len(s['items'])} ({', '.join(kinds)})"
    if kind in KINDS:
        return KINDS[kind].describe(s)
    return f"an object of type {s.get('name', kind)!s} the checks cannot read"


def real_steps(s: dict, trace: BrokenTrace) -> list[int]:
    """Indices of the broken steps one (non-list) evidence summary matches."""
    kind = KINDS.get(s["type"])
    return [] if kind is None else [i for i in range(len(trace.steps)) if kind.matches(s, trace, i)]


def _series_is_real(items: list[dict], trace: BrokenTrace) -> bool:
    """Items that match consecutive broken steps, in order (a series such as grad norms per step)."""
    return any(
        all(k + j in real_steps(item, trace) for j, item in enumerate(items))
        for k in real_steps(items[0], trace)
    )


def _list_is_real(s: dict, trace: BrokenTrace) -> bool:
    """A series of consecutive steps, or observations each real on its own (answers may join them)."""
    items = s["items"]
    shown = [i for i in items if i["type"] != "answer"]
    if not shown or any(i["type"] == "list" for i in items):
        return False
    if len(items) >= 2 and len({i["type"] for i in items}) == 1:  # one kind, several steps: a series
        return _series_is_real(items, trace)
    return all(real_steps(i, trace) for i in shown)


def untied(summary: dict) -> str | None:
    """Why non-finite evidence cannot be tied to any run (None when it can, or is not non-finite): a
    tensor with no graph keeps no lineage, and its NaN or Inf is alike on every run, typed or computed."""
    items = summary["items"] if summary.get("type") == "list" else [summary]
    for item in items:
        nonfinite = bool(item.get("nan") or item.get("inf"))
        if item.get("type") in ("TensorInfo", "NonFiniteError") and nonfinite and not _has_leaves(item):
            return (
                f"{describe(item)} holds NaN or Inf but has no graph (computed under torch.no_grad() or "
                "inference_mode, or typed): NaN and Inf are alike on every run, typed or computed, so only "
                "what a tensor was computed from ties it to this run. Compute it with grad mode on"
            )
    return None


def is_real(summary: dict, trace: BrokenTrace) -> bool:
    """Does the evidence (a summary, or a list of them) match what the traced code produced?"""
    return (
        _list_is_real(summary, trace) if summary.get("type") == "list" else bool(real_steps(summary, trace))
    )
