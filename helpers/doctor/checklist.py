"""The debugging checklist as data: one entry per stage, with its check, its evidence and its advice.

`diagnose` runs a step under instrumentation, builds a `StepFacts` from what it saw, and walks
CHECKLIST in order: the first check that finds something names the stage. A check returns
None (passed) or a Finding (evidence lines and the parameters or modules involved).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from helpers.doctor import computed
from helpers.doctor.carried import replaced_lines
from helpers.doctor.cuts import cut_lines
from helpers.doctor.explain import explain_error
from helpers.doctor.findings import (
    checkpoint_lines,
    clipped_while_scaled,
    copies_lines,
    lr_falls_lines,
    made_non_finite,
    names_text,
)
from helpers.doctor.lookahead import NEAR_ZERO, WINDOW, LrAhead, LrFall
from helpers.doctor.module_runs import ModuleRun, fresh_lines
from helpers.doctor.probe import StepEvidence, autograd_error_kind, loss_reaches
from helpers.gradients import optimizer_parameter_ids
from helpers.status import Stage
from helpers.thresholds import EXPLODING

__all__ = ["ADVICE", "CHECKLIST", "Check", "Finding", "StepFacts"]


@dataclass
class Finding:
    """What a failing check shows: evidence lines and the names involved."""

    evidence: list[str]
    names: list[str] = field(default_factory=list)
    advice: str | None = None  # advice for this finding, in place of the stage's
    summary: str | None = None  # what was found, in place of the stage's description in the headline

    def __repr__(self) -> str:
        return f"Finding({self.evidence!r}, names={self.names!r})"


@dataclass
class StepFacts:
    """Everything one step showed, as the checks read it."""

    ev: StepEvidence
    model: nn.Module
    optimizer: torch.optim.Optimizer
    frozen: tuple[str, ...]
    max_grad_norm: float | None  # None: EXPLODING times the loss's size (at least 1)
    min_grad: float
    grad_enabled_outside: bool
    unregistered: list[tuple[str, torch.Tensor]]
    scheduled: bool  # a learning-rate scheduler drives this optimizer
    all_skipped: bool  # the GradScaler skipped every step so far, this one included, and it is the last
    step: int = 1  # this step's number (1-based)
    skipped: int = 0  # steps the GradScaler skipped so far, this one included
    first_scale: float | None = None  # the GradScaler's scale when diagnose began
    lr_ahead: list[LrAhead] = field(default_factory=list)  # groups at lr 0: when their schedule rises
    lr_falls: list[LrFall] = field(default_factory=list)  # groups whose schedule drives lr toward 0 soon
    copies: list[tuple[str, torch.Tensor]] = field(default_factory=list)  # non-leaf parameter copies held
    bad_at_start: list[str] = field(default_factory=list)  # parameters non-finite when this step began
    carried: list[tuple[str, str]] = field(default_factory=list)  # (attribute, grad_fn) held before the step
    replaced: list[tuple[str, torch.Tensor]] = field(default_factory=list)  # replaced after DDP(...) wrapped
    fresh: list[tuple[nn.Module, str]] = field(default_factory=list)  # modules the forward makes anew
    runs: dict[str, ModuleRun] = field(default_factory=dict)  # how each of the model's modules ran
    conditional: tuple[str, ...] = ()  # parameters that, by design, get no gradient at some steps
    optimizers: list[torch.optim.Optimizer] = field(default_factory=list)  # every optimizer of the step
    named: list[tuple[str, nn.Parameter]] = field(default_factory=list)
    requires: list[str] = field(default_factory=list)
    trainable: list[str] = field(default_factory=list)
    kind: str | None = None
    error_text: str = ""
    got: list[str] = field(default_factory=list)
    intended: tuple[str, ...] = ()  # names whose may-be-intended findings diagnose(intended=) accepts
    held: set[int] = field(default_factory=set)  # ids of the parameters every optimizer of the step holds
    final: bool = True  # the last step diagnose runs (a layer made anew at each call shows by then)

    def __post_init__(self) -> None:
        self.named = list(self.model.named_parameters())
        self.requires = [n for n, p in self.named if p.requires_grad]
        self.trainable = [n for n in self.requires if not frozen_match(n, self.frozen)]
        ev = self.ev
        self.kind = autograd_error_kind(ev.error) if ev.error is not None else None
        self.error_text = f"train_step raised {type(ev.error).__name__}: {ev.error}" if ev.error else ""
        self.got = [n for n in self.requires if ev.grad_calls.get(n)]

    def __repr__(self) -> str:
        return f"StepFacts({self.ev!r}, {len(self.named)} parameters)"


@dataclass(frozen=True)
class Check:
    """One checklist entry: the stage, the check, what evidence it gathers, the advice."""

    stage: Stage
    check: Callable[[StepFacts], Finding | None]
    evidence: str
    advice: str

    def __repr__(self) -> str:
        return f"Check({self.stage.name}: {self.evidence})"


def frozen_match(name: str, frozen: tuple[str, ...]) -> bool:
    """Whether a parameter name is one of, or inside one of, the frozen names."""
    return any(name == f or name.startswith(f + ".") for f in frozen)


def loss_text(ev: StepEvidence) -> str:
    """The loss as evidence."""
    if ev.loss_value is None:
        return "train_step returned no scalar loss"
    return f"loss = {ev.loss_value:.6g}"


def _origin(event: Any) -> list[str]:
    """Where a non-finite forward tensor came from, when no module made it."""
    if not event.tensor.startswith("input") or not event.module:
        return []
    parent = event.module.rpartition(".")[0]
    where = f"the forward of {parent!r}" if parent else "the model's forward"
    after = f", after {event.after!r} ran" if event.after else ", before any submodule ran"
    return [
        f"{event.module!r} received it already non-finite: it was computed in {where}{after} "
        f"(the code between modules), not by {event.module!r}"
    ]


# ---- the checks, in checklist order ---------------------------------------------------------
def _grad_mode(f: StepFacts) -> Finding | None:
    modes = f.ev.forward_grad_modes
    grad_off = (modes and not any(modes)) or (not modes and not f.grad_enabled_outside)
    if not (grad_off and (f.kind == "not_in_graph" or not f.got)):
        return None
    lines = [f"the model's forward ran {len(modes)} time(s), every time with grad mode off"]
    if not modes:
        lines = ["the model never ran; grad mode was off when diagnose() was called"]
    return Finding([*lines, f.error_text] if f.error_text else lines)


def _made_by_step(f: StepFacts) -> list[str]:
    """Parameters this step's optimizer.step() made non-finite while every gradient was finite."""
    ev = f.ev
    if ev.error is not None or not ev.optimizer_log or ev.skipped_by_scaler:
        return []
    if any(not math.isfinite(ev.max_abs.get(n, 0.0)) for n in f.trainable):
        return []  # non-finite gradients: GRAD_NON_FINITE names them
    return [n for n in ev.bad_after if n not in ev.bad_before]


_WRITTEN = "optimizer.step() wrote NaN or Inf into the parameters, from a finite loss and finite gradients"


def _forward_finite(f: StepFacts) -> Finding | None:
    if f.bad_at_start:
        lines, advice = made_non_finite(f, f.bad_at_start, at_start=True)
        return Finding(
            lines, f.bad_at_start, advice, "the parameters already held NaN or Inf when diagnose began"
        )
    watch = f.ev.watch
    forward = [e for e in watch.events if e.phase == "forward"] if watch else []
    loss_bad = f.ev.loss_value is not None and not math.isfinite(f.ev.loss_value)
    if loss_bad and not forward and watch:  # a -inf mask the loss did not survive is no mask
        forward = watch.masks
    if not (forward or loss_bad):
        made = _made_by_step(f) if f.ev.loss_value is not None else []
        if made:
            lines, advice = made_non_finite(f, made, at_start=False)
            return Finding(lines, made, advice, _WRITTEN)
        return None
    lines = [loss_text(f.ev)]
    if forward:
        first = forward[0]
        lines.append(f"first non-finite forward tensor: {first.where} (nan={first.nan}, inf={first.inf})")
        lines += _origin(first)
    else:
        lines.append("every module output is finite: the NaN/Inf appears after the model, in the loss")
    return Finding(lines, [e.module for e in forward[:1]])


def _loss_in_graph(f: StepFacts) -> Finding | None:
    if not f.requires:
        return None  # nothing could be in the graph: the next check names the frozen parameters
    if f.kind == "not_in_graph":
        return Finding([f.error_text, "grad mode was on during the forward pass"])
    if f.ev.error is None and not f.got:
        loss = f.ev.loss
        if not loss_reaches(loss, {id(p) for _, p in f.named if p.requires_grad}):
            leaf = isinstance(loss, torch.Tensor) and loss.grad_fn is None
            detail = "the loss has no grad_fn" if leaf else "the loss's graph reaches none of the parameters"
            return Finding(
                [
                    f"no parameter received a gradient; {detail}",
                    "it was rebuilt from numbers (.item(), NumPy) or cut with .detach()",
                ]
            )
    return None


def _nothing_frozen_by_mistake(f: StepFacts) -> Finding | None:
    if not f.requires and (f.unregistered or f.copies):
        return None  # what trains is held but not registered: PARAMS_UNREGISTERED names it
    if not f.requires:
        return Finding(["no parameter of the model requires grad", f.error_text or loss_text(f.ev)])
    stray = [n for n, p in f.named if not p.requires_grad and not frozen_match(n, f.frozen)]
    if not stray:
        return None
    return Finding([f"requires_grad is False on {names_text(stray)} (not listed in frozen=)"], stray)


def _backward_ran(f: StepFacts) -> Finding | None:
    ev = f.ev
    if ev.error is None:
        return None
    lines, advice = explain_error(ev.error, ev.raised, f.kind, f.model, ev.optimizer_log, f.carried)
    return Finding(lines, advice=advice)  # None: the Check's own advice


def _gradients_present(f: StepFacts) -> Finding | None:
    missing = [n for n in f.trainable if not f.ev.grad_calls.get(n) and not frozen_match(n, f.conditional)]
    if not missing:
        return None
    lines = [f"no gradient reached {names_text(missing)} ({len(f.got)} of {len(f.requires)} trainable did)"]
    checkpointed = checkpoint_lines(f, missing)
    if checkpointed is not None:
        return Finding(lines + checkpointed[0], missing, checkpointed[1])
    lines += cut_lines(missing, f.requires, f.runs)
    if not f.got:
        lines.append("the loss is connected to the parameters: was loss.backward() called?")
    return Finding(lines, missing)


def _scale_too_large(f: StepFacts) -> str:
    """The cause of a GradScaler finding, with the scale it started from."""
    return (
        f"the cause: the GradScaler's scale ({f.first_scale:g} when diagnose began) is so large that "
        "the scaled gradients overflow float32; lower init_scale (torch's default is 65536 = 2**16)"
    )


def _scaler_overflow(f: StepFacts, bad: list[str]) -> Finding | None:
    """Every step skipped by the GradScaler, or a step whose scaled gradients' norm is infinite."""
    ev = f.ev
    if ev.skipped_by_scaler and f.all_skipped:
        at = (
            f"scale {ev.scale:g}"
            if f.step == 1
            else f"scale {f.first_scale:g} at step 1, {ev.scale:g} at step {f.step}"
        )
        lines = [
            f"GradScaler skipped optimizer.step(): {at} (lowered to {ev.scale_after:g}); "
            f"non-finite scaled gradients in {names_text(bad) or 'parameters outside the model'}",
            f"every step was skipped ({f.skipped} of {f.step}): even the lowered scales overflow, so "
            "optimizer.step() never ran and no parameter was updated",
            _scale_too_large(f),
        ]
        return Finding(lines, bad)
    if ev.skipped_by_scaler or bad or math.isfinite(ev.sq_norm):
        return None
    largest = max((ev.max_abs.get(n, 0.0) for n in f.trainable), default=0.0)
    skipped = (
        f"GradScaler skipped optimizer.step() in {f.skipped} of {f.step} steps (non-finite scaled "
        f"gradients), lowering the scale from {f.first_scale:g} to {ev.scale:g}: still too large"
        if f.skipped
        else "GradScaler skipped no step: every element is finite, only the norm overflows"
    )
    overflow = [n for n in f.trainable if not math.isfinite(ev.norms.get(n, 0.0))]
    if not overflow:  # no single norm overflows, only their sum: name the largest
        overflow = sorted(f.trainable, key=lambda n: -ev.norms.get(n, 0.0))[:3]
    lines = [
        f"the total gradient norm is inf: at scale {ev.scale:g} the scaled gradients' norm overflows "
        f"float32 (largest |g| {largest:.4g} unscaled, {largest * ev.scale:.4g} scaled); every element "
        f"is finite, the scaled norms that overflow are {names_text(overflow)}'s",
        skipped,
        _scale_too_large(f),
    ]
    return Finding(lines, overflow)


def _gradients_finite(f: StepFacts) -> Finding | None:
    ev = f.ev
    bad = [n for n in f.trainable if not math.isfinite(ev.max_abs.get(n, 0.0))]
    if ev.scale is not None:
        found = _scaler_overflow(f, bad)
        if found is not None or ev.skipped_by_scaler:
            return found  # a skipped step alone is the scaler's job: it lowers the scale, the next runs
    if not bad:
        return None
    watch = ev.watch
    back = [e for e in watch.events if e.phase == "backward"] if watch else []
    lines = [f"{names_text(bad)}: gradient holds NaN or Inf while the forward pass and loss are finite"]
    if back:
        lines.append(f"first non-finite backward tensor: {back[0].where}")
    if back and not back[0].module and back[0].tensor.startswith("grad output"):
        lines.append(_FROM_OUTSIDE)
    return Finding(lines, bad)


_FROM_OUTSIDE = (
    "it entered the model through the gradient of its output: the loss, or what the step computes "
    "from the output, made it in its backward (a sqrt at 0, a NaN target masked after the loss)"
)


def _norm_limit(f: StepFacts) -> float:
    """The largest healthy total gradient norm: max_grad_norm when given, else EXPLODING times |loss|
    (at least 1): a loss summed over a batch has a gradient as many times larger as the loss is."""
    if f.max_grad_norm is not None:
        return f.max_grad_norm
    loss = f.ev.loss_value
    size = abs(loss) if loss is not None and math.isfinite(loss) else 1.0
    return EXPLODING * max(1.0, size)


def _limit_text(f: StepFacts) -> str:
    if f.max_grad_norm is not None:
        return f"max_grad_norm={f.max_grad_norm:g}"
    return (
        f"{_norm_limit(f):.4g} ({EXPLODING:g} x max(1, |loss|); set the limit with diagnose(..., "
        "max_grad_norm=...))"
    )


def _magnitudes(f: StepFacts) -> Finding | None:
    ev = f.ev
    if ev.skipped_by_scaler or (ev.scale is not None and not math.isfinite(ev.sq_norm)):
        return None  # non-finite scaled gradients or norm, handled above
    clipped = clipped_while_scaled(f)
    if clipped is not None:
        return Finding(clipped[0], f.trainable, clipped[1])
    norm = math.sqrt(ev.sq_norm)
    largest = max((ev.max_abs.get(n, 0.0) for n in f.trainable), default=0.0)
    unscaled = " (unscaled by the GradScaler's scale)" if ev.scale else ""
    if norm > _norm_limit(f):
        return Finding([f"total gradient norm {norm:.4g} > {_limit_text(f)}{unscaled}"])
    if f.trainable and largest < f.min_grad:
        return Finding(
            [f"every gradient is below min_grad={f.min_grad:g} (largest |g| = {largest:.4g}){unscaled}"],
            f.trainable,
        )
    return None


def _registered(f: StepFacts) -> Finding | None:
    if f.replaced:
        lines, advice = replaced_lines(f.replaced)
        return Finding(lines, [name for name, _ in f.replaced], advice)
    if f.fresh:
        lines, names, advice = fresh_lines(f.fresh)
        return Finding(lines, names, advice)
    if f.copies:
        paths = [path for path, _ in f.copies]
        advice = (
            "Register the parameter itself and move the module: self.w = nn.Parameter(tensor) then "
            "model.to(device) (or nn.Parameter(tensor.to(device))), never nn.Parameter(...).to(device)."
        )
        return Finding(copies_lines(f.copies), paths, advice)
    if not f.unregistered:
        return None
    paths = [path for path, _ in f.unregistered]
    in_opt = _held(f)
    outside = [path for path, t in f.unregistered if id(t) not in in_opt]
    lines = [
        f"the model holds trainable tensors it does not register: {names_text(paths)} "
        "(a plain list, dict or tuple, or a tensor attribute)",
        "model.parameters() misses them: "
        + (
            f"the optimizer does not hold {names_text(outside)}"
            if outside
            else "they are not moved by .to(device) nor saved by state_dict()"
        ),
    ]
    return Finding(lines, paths)


def _held(f: StepFacts) -> set[int]:
    """The ids of the parameters any optimizer of the step holds (the one given, the others it uses)."""
    return set().union(*(optimizer_parameter_ids(o) for o in [f.optimizer, *f.optimizers]))


def _in_optimizer(f: StepFacts) -> Finding | None:
    in_opt = _held(f)
    outside = [n for n, p in f.named if n in f.trainable and id(p) not in in_opt]
    if not outside:
        return None
    return Finding(
        [f"{names_text(outside)} get gradients but no param group of the optimizer holds them"], outside
    )


def _no_leftovers(f: StepFacts) -> Finding | None:
    stale = [n for n in f.trainable if f.ev.leftover.get(n, 0.0) != 0.0]
    if not stale:
        return None
    return Finding(
        [
            f"{names_text(stale)} still held a non-zero .grad when this step's first backward began",
            f"largest leftover |g| = {max(f.ev.leftover[n] for n in stale):.4g}",
        ],
        stale,
    )


def _group_lrs(f: StepFacts) -> dict[int, float]:
    """id(parameter) -> the lr its group used in this step's first optimizer.step()."""
    lrs = f.ev.lrs or []
    return {id(p): lr for group, lr in zip(f.optimizer.param_groups, lrs) for p in group["params"]}


def _held_at_zero(a: LrAhead) -> str:
    """What the look-ahead found for a param group whose schedule keeps lr at 0."""
    about = "" if a.step_lr == 0.0 else f" (about 0: at most {NEAR_ZERO:g} times its initial lr)"
    where = f"{a.scheduler} holds the learning rate of param group {a.group} at {a.step_lr:g}{about}"
    if a.first_nonzero is None:
        return f"{where}: looked ahead on a copy, it stays there for the next {WINDOW} scheduler steps"
    return (
        f"{where}: looked ahead on a copy, it stays there from its step {a.start} (where diagnose began) "
        f"to step {a.first_nonzero - 1} and becomes {a.lr:g} only at step {a.first_nonzero}: "
        f"{a.first_nonzero - a.start} steps that update nothing"
    )


def _rounding(param: torch.Tensor) -> float:
    """A gradient at most this fraction of the largest one is rounding error, not a gradient: what a
    gradient that is 0 in exact arithmetic computes to (the bias of a Linear before a BatchNorm, whose
    mean BatchNorm subtracts). 16 float epsilons: a sum of a batch of terms rounds that much."""
    return 16 * torch.finfo(param.dtype).eps if param.is_floating_point() or param.is_complex() else 0.0


def _used(ev: StepEvidence, name: str) -> float:
    """max |g| of the gradient an optimizer.step() used for a parameter; with no step that holds it and
    saw a .grad (the .grad None: cleared before the step, or the step called before backward), of the
    gradients backward gave it."""
    if name in ev.used and name not in ev.cleared_at_step:
        return ev.used[name]
    return ev.max_abs.get(name, 0.0)


def _parameters_moved(f: StepFacts) -> Finding | None:
    ev = f.ev
    if ev.skipped_by_scaler:
        return None  # the scaler skipped the step on purpose
    lr_of = _group_lrs(f)
    params = dict(f.named)
    group_of = {id(p): i for i, g in enumerate(f.optimizer.param_groups) for p in g["params"]}
    held = {a.group: a for a in f.lr_ahead if not a.rises_next}
    warming = {a.group for a in f.lr_ahead if a.rises_next}
    grad = {n: _used(ev, n) for n in f.trainable}
    largest = max(grad.values(), default=0.0)
    should_move = [n for n in f.trainable if grad[n] > _rounding(params[n]) * largest]
    if f.scheduled:  # a warm-up from lr (about) 0 moves nothing in its first step, by design; a hold is a bug
        should_move = [
            n
            for n in should_move
            if group_of.get(id(params[n])) not in warming
            and (lr_of.get(id(params[n]), 1.0) != 0.0 or group_of.get(id(params[n])) in held)
        ]
    still = [n for n in should_move if not ev.moved.get(n, True)]
    if not (still or (should_move and ev.optimizer_steps == 0)):
        falls = [a for a in f.lr_falls if not a.warm_up]  # a warm-up then a decay is sized in steps
        if falls:
            lines, advice = lr_falls_lines(falls)
            return Finding(lines, [], advice)
        return None
    used = sorted(set(ev.lrs)) if ev.lrs is not None else "none (optimizer.step() was not called)"
    groups = sorted({group_of.get(id(params[n])) for n in still or should_move} & held.keys())
    cleared = [n for n in still if n in ev.cleared_at_step]
    return Finding(
        [
            f"{names_text(still or should_move)} had non-zero gradients but did not change",
            f"optimizer.step() was called {ev.optimizer_steps} time(s); learning rate(s) {used}",
            *(_held_at_zero(held[g]) for g in groups),
            *([_CLEARED.format(names_text(cleared))] if cleared else []),
        ],
        still or should_move,
        _CLEARED_ADVICE if cleared else None,
    )


_CLEARED = (
    "backward gave {0} gradients, but their .grad was None when optimizer.step() ran, so the step "
    "skipped them: zero_grad() (or .grad = None) ran between loss.backward() and optimizer.step()"
)
_CLEARED_ADVICE = (
    "The gradients were cleared before the step used them: call optimizer.zero_grad() before the forward "
    "pass (or before loss.backward(), or after optimizer.step()), never between backward and step."
)


def _then(own: Callable[[StepFacts], Finding | None], *more: Callable[[StepFacts], Any]):
    """A stage's own check, then the checks of what the step computes (computed.py), in order."""

    def check(f: StepFacts) -> Finding | None:
        found = own(f)
        for extra in more:
            if found is not None:
                break
            lines = extra(f)
            found = Finding(*lines) if lines is not None else None
        return found

    check.__name__ = own.__name__
    return check


def _clipping_then_magnitudes(f: StepFacts) -> Finding | None:
    """A clip call that clipped nothing the update used, before the magnitudes it should have bounded."""
    lines = computed.clipping(f)
    if lines is not None:
        return Finding(*lines)
    found = _magnitudes(f)
    clips = [c for c in f.ev.trace.clips if c.received] if f.ev.trace and found else []
    if clips:  # the norms are measured as backward made them, before the step's own clip
        found.evidence.append(
            f"the step clips them already (torch.nn.utils.{clips[0].function} before optimizer.step(), "
            f"{clips[0].where}): these norms are the gradients before clipping"
        )
    return found


CHECKLIST: tuple[Check, ...] = (
    Check(
        Stage.GRAD_MODE_DISABLED,
        _then(_grad_mode, computed.eval_mode),
        "grad mode at every call of the model",
        "Look for torch.no_grad(), torch.inference_mode() or torch.set_grad_enabled(False) around the "
        "forward pass (or around the call of the step).",
    ),
    Check(
        Stage.FORWARD_NON_FINITE,
        _forward_finite,
        "the loss, every module's output and inputs made between modules (watch_non_finite)",
        "Find the first module whose output is not finite (evidence): look for division by zero, log or "
        "sqrt of non-positive values, exp overflow, or NaN in the data.",
    ),
    Check(
        Stage.LOSS_NOT_IN_GRAPH,
        _then(_loss_in_graph, computed.loss_content),
        "the autograd error, or the loss's graph walked back to the parameters",
        "Walk back from the loss: look for .detach(), .item(), .numpy(), torch.tensor(...) rebuilt from "
        "numbers, or a graph built under no_grad.",
    ),
    Check(
        Stage.PARAMS_FROZEN,
        _nothing_frozen_by_mistake,
        "requires_grad of every parameter; those False and not listed in frozen=",
        "Look for requires_grad_(False) / requires_grad = False on these parameters; pass frozen=[...] "
        "to diagnose() if they are frozen on purpose.",
    ),
    Check(
        Stage.BACKWARD_FAILED,
        _then(_backward_ran, computed.step_warnings),
        "the autograd error train_step raised",
        "Read the error: an in-place change of a tensor backward needs (use the out-of-place op or "
        ".clone()), a second backward through a freed graph (detach carried state between steps), or a "
        "loss that is not a scalar (reduce it with .mean() or .sum()).",
    ),
    Check(
        Stage.GRAD_MISSING,
        _gradients_present,
        "a gradient hook on every trainable parameter",
        "These parameters never got a gradient: find where the path from them to the loss is cut "
        "(.detach(), .item(), no_grad) or whether their module is used at all. If it runs only at some "
        "steps by design (a mixture of experts, stochastic depth), pass conditional=[...] to diagnose().",
    ),
    Check(
        Stage.GRAD_NON_FINITE,
        _gradients_finite,
        "max |g| of every incoming gradient, the first non-finite backward tensor, GradScaler skips and "
        "scaled norms that overflow",
        "The forward pass is finite but a backward produced NaN or Inf: look at the first backward event "
        "(a sqrt, log or division whose derivative blows up, even behind torch.where).",
    ),
    Check(
        Stage.GRAD_MAGNITUDE,
        _clipping_then_magnitudes,
        "the total gradient norm and the largest |g|, unscaled by a GradScaler's scale",
        "Gradients are exploding or vanishing: check the loss scale, the learning rate, the "
        "initialisation, and clip with torch.nn.utils.clip_grad_norm_.",
    ),
    Check(
        Stage.PARAMS_UNREGISTERED,
        _then(_registered, computed.shared),
        "tensors that require grad, reachable from the model's attributes, but not registered",
        "Hold layers in nn.ModuleList / nn.ModuleDict (not a list or dict) and tensors as nn.Parameter "
        "(or register_buffer), then build the optimizer from model.parameters().",
    ),
    Check(
        Stage.NOT_IN_OPTIMIZER,
        _then(_in_optimizer, computed.outside),
        "the parameters every param group holds",
        "Build the optimizer from model.parameters() after the model is final (a layer replaced later "
        "is not in it), or add the missing ones with optimizer.add_param_group.",
    ),
    Check(
        Stage.GRADS_ACCUMULATING,
        _no_leftovers,
        "max |.grad| of every parameter before the step's first backward",
        "Call optimizer.zero_grad() (or model.zero_grad()) once per iteration, before backward; zero every "
        "parameter, not only the optimizer's.",
    ),
    Check(
        Stage.PARAMS_NOT_UPDATED,
        _parameters_moved,
        "whether each parameter changed, optimizer.step() calls, the lr each step used and, for an lr of 0, "
        "the schedule ahead (on a copy)",
        "optimizer.step() did not move parameters that had gradients: check that it is called, after "
        "backward and before zero_grad, and that the learning rate is not zero.",
    ),
)

ADVICE: dict[Stage, str] = {c.stage: c.advice for c in CHECKLIST}
ADVICE[Stage.OK] = (
    "Every check passed: gradients reach every trainable parameter, are finite and sane, and "
    "optimizer.step() moves the parameters."
)
