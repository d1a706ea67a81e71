"""Trusted runs of broken code: what its first steps made, raised, computed and moved.

The grader traces each hidden run's code in its own process (challenge/reference.py, by variant); a
graded notebook's part-1 check traces the learner's own code (`trace_code`), so both match evidence
against the same record (proving/kinds.py). Nothing here knows a bug's stage.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from autograd_course.harness_core import broken_namespace
from helpers import gradient_report, make_tiny_problem
from helpers._stats import count_nonfinite, exact_norm  # the one NaN/Inf counter, the exact norm
from helpers.lineage import lineage
from helpers.parameters import value_norms  # the fingerprint parameter_report and parameter_changes carry
from helpers.thresholds import EXPLODING, VANISHING

__all__ = [
    "REFERENCE_STEPS",
    "BrokenTrace",
    "StepRecord",
    "behaviour",
    "close",
    "tensor_stats",
    "trace_code",
    "trace_run",
]

REFERENCE_STEPS = 10  # evidence may come from any of the first 10 broken steps (docs/grading.md says so)
ALIKE_STEPS = 3  # seeds alike in their first 3 steps' behaviour (`behaviour`) show the same failure


def tensor_stats(t: torch.Tensor) -> dict:
    """Shape, min/max/mean (NaN-aware floats) and NaN/Inf counts of one floating tensor.

    Every torch call of a traced step passes here, so it does few torch calls: one aminmax, and the
    non-finite sample only where there is one."""
    d = t.detach().double().cpu()
    nan, inf = count_nonfinite(d).tolist()
    empty = d.numel() == 0
    low, high = (None, None) if empty else (float(v) for v in d.aminmax())
    stats = {
        "shape": list(d.shape),
        "requires_grad": t.requires_grad,
        "nan": nan,
        "inf": inf,
        "min": low,
        "max": high,
        "mean": None if empty else float(d.mean()),
        "nonfinite_sample": [float(v) for v in d[~torch.isfinite(d)].flatten()[:5]] if nan + inf else [],
        # what a non-finite tensor was computed from: its values are alike on every run, this is not
        "lineage": lineage(t).as_data() if nan + inf else None,
    }
    return stats


class _Recorder(TorchFunctionMode):
    """Records the statistics of every floating tensor a torch function returns."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[dict] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if isinstance(out, torch.Tensor) and out.is_floating_point() and out.numel() <= 4096:
            self.seen.append(tensor_stats(out))  # torch calls in here skip this mode: no recursion
        return out


@dataclass
class StepRecord:
    """What one broken step did: tensors it made, its error, gradients after it, what moved, and the
    parameters' value norms before and after it (what a report taken between steps carries)."""

    tensors: list[dict]
    error: str | None
    loss: float | None
    grads: dict[str, dict | None]
    grad_norm: float | None
    changed: dict[str, bool]
    max_delta: dict[str, float]
    norms_before: dict[str, float] = field(default_factory=dict)
    norms_after: dict[str, float] = field(default_factory=dict)


@dataclass
class BrokenTrace:
    """The first REFERENCE_STEPS steps of one broken setup, plus its parameters at the start."""

    variant: Any  # what was traced (the grader's Variant; None for code given as source)
    seed: int
    names: list[str]
    shapes: dict[str, list[int]]
    requires_grad: dict[str, bool]
    in_optimizer: dict[str, bool]
    direct: list[dict] = field(default_factory=list)  # tensors of compute_loss called outside the step
    direct_recorded: bool | None = None  # does that loss have a graph (None: the call raised)
    steps: list[StepRecord] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"BrokenTrace({self.variant!r}, seed {self.seed}, {len(self.steps)} steps)"


def _grad_stats(g: torch.Tensor | None) -> dict | None:
    if g is None:
        return None
    nan, inf = count_nonfinite(g).tolist()
    return {"norm": float(exact_norm(g)), "nan": nan, "inf": inf}


def _unregistered(model: torch.nn.Module) -> dict[str, dict | None]:
    """Gradient statistics of the trainable tensors the model holds without registering them."""
    rows = [r for r in gradient_report(model).rows if r.status.name == "UNREGISTERED"]
    return {r.name: None if r.norm is None else {"norm": r.norm} for r in rows}


def _trace_direct(trace: BrokenTrace, compute_loss, model, inputs, targets) -> None:
    """compute_loss called on its own, outside the step, with grad mode on: is its loss recorded?"""
    recorder = _Recorder()
    try:
        with torch.enable_grad(), recorder:
            loss = compute_loss(model, inputs, targets)
    except RuntimeError:
        return
    trace.direct = recorder.seen
    trace.direct_recorded = isinstance(loss, torch.Tensor) and loss.grad_fn is not None


def trace_run(code: dict[str, Any], seed: int, label: Any = None) -> BrokenTrace:
    """Run broken code's setup on CPU (code: its compiled functions) and record its first steps."""
    setup, step = code["broken_setup"], code["broken_step"]
    inputs, targets = make_tiny_problem(seed)
    model, optimizer = setup(seed, "cpu")
    named = list(model.named_parameters())
    held = {id(p) for group in optimizer.param_groups for p in group["params"]}
    trace = BrokenTrace(
        label,
        seed,
        [n for n, _ in named],
        {n: list(p.shape) for n, p in named},
        {n: p.requires_grad for n, p in named},
        {n: id(p) in held for n, p in named},
    )
    _trace_direct(trace, code["compute_loss"], model, inputs, targets)
    for _ in range(REFERENCE_STEPS):
        before = {n: p.detach().clone() for n, p in model.named_parameters()}
        norms_before = value_norms(model)
        recorder = _Recorder()
        error, loss = None, None
        try:
            with recorder:
                out = step(model, optimizer, inputs, targets)
            loss = float(out.detach()) if isinstance(out, torch.Tensor) else None
        except RuntimeError as exc:
            error = str(exc)
        grads = {n: _grad_stats(p.grad) for n, p in model.named_parameters()} | _unregistered(model)
        present = [p.grad.detach().double() for _, p in model.named_parameters() if p.grad is not None]
        norm = float(torch.linalg.vector_norm(torch.cat([g.flatten() for g in present]))) if present else None
        deltas = {n: (p.detach() - before[n]).abs().double() for n, p in model.named_parameters()}
        trace.steps.append(
            StepRecord(
                tensors=recorder.seen,
                error=error,
                loss=loss,
                grads=grads,
                grad_norm=norm,
                changed={n: bool((d != 0).any()) for n, d in deltas.items()},
                max_delta={n: float(d.max()) for n, d in deltas.items()},
                norms_before=norms_before,
                norms_after=value_norms(model),
            )
        )
        if error is not None:
            break
    return trace


def trace_code(code: str, seed: int) -> BrokenTrace:
    """trace_run of broken code given as source (the learner's own, in a graded notebook's check)."""
    namespace = broken_namespace(code, "<broken code>")
    with torch.random.fork_rng(devices=[]):
        return trace_run(namespace, seed)


def _grad_kind(g: dict | None, settled: bool) -> str:
    if g is None:
        return "none"
    if g.get("nan") or g.get("inf"):
        return "non-finite"
    if g["norm"] == 0:
        return "zero"
    if not settled:  # sizes computed from non-finite values are noise, alike on no two seeds
        return "finite"
    return "vanishing" if g["norm"] <= VANISHING else "exploding" if g["norm"] > EXPLODING else "sized"


def _any_nonfinite(tensors: list[dict]) -> bool:
    return any(t["nan"] or t["inf"] for t in tensors)


def _step_behaviour(record: StepRecord, previous: float | None) -> tuple:
    finite_loss = record.loss is None or math.isfinite(record.loss)
    finite_tensors = not _any_nonfinite(record.tensors)
    settled = finite_loss and finite_tensors
    rose = "-"
    if settled and previous is not None and record.grad_norm is not None and math.isfinite(record.grad_norm):
        rose = "up" if record.grad_norm > previous else "down" if record.grad_norm < previous else "same"
    return (
        record.error is not None,
        finite_loss,
        finite_tensors,
        tuple(sorted((n, _grad_kind(g, settled)) for n, g in record.grads.items())),
        rose,
        tuple(sorted(n for n, moved in record.changed.items() if moved)),
    )


def behaviour(trace: BrokenTrace) -> tuple:
    """What the code visibly does in its first ALIKE_STEPS steps, coarsely: each step's error, whether
    its loss and tensors are finite, each gradient's kind, whether the gradient norm rose, and what
    moved. Two seeds alike here fail alike; nothing here names a stage."""
    steps, previous = [], None
    for record in trace.steps[:ALIKE_STEPS]:
        steps.append(_step_behaviour(record, previous))
        previous = record.grad_norm
    direct = (trace.direct_recorded, _any_nonfinite(trace.direct))
    return direct, tuple(steps)


def close(a: float | None, b: float | None, rtol: float = 1e-3, atol: float = 1e-7) -> bool:
    """Equal within tolerance, NaN equal to NaN, Inf equal to the same Inf."""
    if a is None or b is None:
        return a is b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * abs(b)
