"""`diagnose`: run the user's own training step and walk the debugging checklist for them."""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from helpers._probe import StepEvidence, autograd_error_kind, loss_reaches, run_probed_step
from helpers._state import TrainingState
from helpers._table import STATUS_COLOURS
from helpers._validate import require_module
from helpers.gradients import classify_parameter_gradients, optimizer_parameter_ids
from helpers.parameters import parameter_changes, snapshot_parameters
from helpers.status import Stage

__all__ = ["ADVICE", "Diagnosis", "diagnose"]

ADVICE: dict[Stage, str] = {
    Stage.GRAD_MODE_DISABLED: "Look for torch.no_grad(), torch.inference_mode() or "
    "torch.set_grad_enabled(False) around the forward pass (or around the call of the step).",
    Stage.FORWARD_NON_FINITE: "Find the first module whose output is not finite (evidence): look for "
    "division by zero, log or sqrt of non-positive values, exp overflow, or NaN in the data.",
    Stage.LOSS_NOT_IN_GRAPH: "Walk back from the loss: look for .detach(), .item(), .numpy(), "
    "torch.tensor(...) rebuilt from numbers, or a graph built under no_grad.",
    Stage.PARAMS_FROZEN: "Look for requires_grad_(False) / requires_grad = False on these parameters; "
    "pass frozen=[...] to diagnose() if they are frozen on purpose.",
    Stage.BACKWARD_FAILED: "Read the error: an in-place change of a tensor backward needs (use the "
    "out-of-place op or .clone()), a second backward through a freed graph (detach carried state "
    "between steps), or a loss that is not a scalar (reduce it with .mean() or .sum()).",
    Stage.GRAD_MISSING: "These parameters never got a gradient: find where the path from them to the "
    "loss is cut (.detach(), .item(), no_grad) or whether their module is used at all.",
    Stage.GRAD_NON_FINITE: "The forward pass is finite but a backward produced NaN or Inf: look at the "
    "first backward event (a sqrt, log or division whose derivative blows up, even behind torch.where).",
    Stage.GRAD_MAGNITUDE: "Gradients are exploding or vanishing: check the loss scale, the learning "
    "rate, the initialisation, and clip with torch.nn.utils.clip_grad_norm_.",
    Stage.NOT_IN_OPTIMIZER: "Build the optimizer from model.parameters() after the model is final "
    "(a layer replaced later is not in it), or add the missing ones with optimizer.add_param_group.",
    Stage.GRADS_ACCUMULATING: "Call optimizer.zero_grad() (or model.zero_grad()) once per iteration, "
    "before backward; zero every parameter, not only the optimizer's.",
    Stage.PARAMS_NOT_UPDATED: "optimizer.step() did not move parameters that had gradients: check that "
    "it is called, after backward and before zero_grad, and that the learning rate is not zero.",
    Stage.OK: "Every check passed: gradients reach every trainable parameter, are finite and sane, "
    "and optimizer.step() moves the parameters.",
}


@dataclass
class Diagnosis:
    """diagnose()'s result: the first failing `.stage`, the `.evidence` for it, and `.advice`."""

    stage: Stage
    evidence: list[str]
    advice: str
    step: int | None  # the step (1-based) that failed; None when the stage is OK
    steps: int  # how many steps ran
    names: list[str] = field(default_factory=list)  # the parameters or modules involved
    losses: list[float | None] = field(default_factory=list)
    reports: dict[str, Any] = field(default_factory=dict)  # the reports behind the evidence
    error: BaseException | None = None  # the autograd error train_step raised, if any

    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return self.stage is Stage.OK

    def _headline(self) -> str:
        where = f" at step {self.step} of {self.steps}" if self.step else f" ({self.steps} steps)"
        return f"Diagnosis: {self.stage.name}{where}: {self.stage.value}"

    def __repr__(self) -> str:
        lines = [self._headline(), "evidence:"]
        lines += [f"  - {e}" for e in self.evidence]
        lines += ["advice:", f"  {self.advice}"]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        colour = STATUS_COLOURS["OK"] if self.ok else "#ffcdd2"
        items = "".join(f"<li>{html.escape(e)}</li>" for e in self.evidence)
        return (
            f"<div class='autograd-diagnosis'><p style='background:{colour};padding:4px'>"
            f"<b>{html.escape(self.stage.name)}</b> {html.escape(self.stage.value)}"
            f"{html.escape(f' (step {self.step} of {self.steps})' if self.step else '')}</p>"
            f"<p><b>evidence</b></p><ul>{items}</ul>"
            f"<p><b>advice</b>: {html.escape(self.advice)}</p></div>"
        )


def _frozen_match(name: str, frozen: tuple[str, ...]) -> bool:
    return any(name == f or name.startswith(f + ".") for f in frozen)


def _check_frozen(model: nn.Module, frozen: Iterable[str]) -> tuple[str, ...]:
    if isinstance(frozen, str):
        frozen = (frozen,)
    items = tuple(frozen)
    for f in items:
        if not isinstance(f, str) or not f:
            raise TypeError(f"expected frozen to hold parameter names or module paths, got {f!r}")
    params = [n for n, _ in model.named_parameters()]
    unknown = [f for f in items if not any(_frozen_match(n, (f,)) for n in params)]
    if unknown:
        raise ValueError(f"frozen names no parameter or module: {unknown}; the parameters are {params}")
    return items


def _names(names: Iterable[str], limit: int = 6) -> str:
    names = list(names)
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _loss_text(ev: StepEvidence) -> str:
    if ev.loss_value is None:
        return "train_step returned no scalar loss"
    return f"loss = {ev.loss_value:.6g}"


def _judge(
    ev: StepEvidence,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    frozen: tuple[str, ...],
    *,
    max_grad_norm: float,
    min_grad: float,
    grad_enabled_outside: bool,
    moved: dict[str, bool],
) -> tuple[Stage, list[str], list[str]]:
    """The first failing stage of one step, with evidence lines and names."""
    named = list(model.named_parameters())
    requires = [n for n, p in named if p.requires_grad]
    trainable = [n for n in requires if not _frozen_match(n, frozen)]
    kind = autograd_error_kind(ev.error) if ev.error is not None else None
    error_text = f"train_step raised {type(ev.error).__name__}: {ev.error}" if ev.error else ""
    modes = ev.forward_grad_modes
    grad_off = (modes and not any(modes)) or (not modes and not grad_enabled_outside)
    got = [n for n in requires if ev.grad_calls.get(n)]

    # 1. grad mode
    if grad_off and (kind == "not_in_graph" or not got):
        lines = [f"the model's forward ran {len(modes)} time(s), every time with grad mode off"]
        if not modes:
            lines = ["the model never ran; grad mode was off when diagnose() was called"]
        return Stage.GRAD_MODE_DISABLED, [*lines, error_text] if error_text else lines, []
    # 2. finite forward and loss
    watch = ev.watch
    forward = [e for e in watch.events if e.phase == "forward"] if watch else []
    loss_bad = ev.loss_value is not None and not math.isfinite(ev.loss_value)
    if forward or loss_bad:
        lines = [_loss_text(ev)]
        if forward:
            lines.append(f"first non-finite forward tensor: {forward[0].where} (nan={forward[0].nan}, "
                         f"inf={forward[0].inf})")  # fmt: skip
        else:
            lines.append("every module output is finite: the NaN/Inf appears after the model, in the loss")
        return Stage.FORWARD_NON_FINITE, lines, [e.module for e in forward[:1]]
    # 3. nothing trains at all
    if not requires:
        return (
            Stage.PARAMS_FROZEN,
            ["no parameter of the model requires grad", error_text or _loss_text(ev)],
            [],
        )
    # 4. loss connected to the graph
    if kind == "not_in_graph":
        return Stage.LOSS_NOT_IN_GRAPH, [error_text, "grad mode was on during the forward pass"], []
    if ev.error is None and not got:
        loss = ev.loss
        if not loss_reaches(loss, {id(p) for _, p in named if p.requires_grad}):
            leaf = isinstance(loss, torch.Tensor) and loss.grad_fn is None
            detail = "the loss has no grad_fn" if leaf else "the loss's graph reaches none of the parameters"
            return (
                Stage.LOSS_NOT_IN_GRAPH,
                [
                    f"no parameter received a gradient; {detail}",
                    "it was rebuilt from numbers (.item(), NumPy) or cut with .detach()",
                ],
                [],
            )
    # 5. parameters that should train
    stray = [n for n, p in named if not p.requires_grad and not _frozen_match(n, frozen)]
    if stray:
        return (
            Stage.PARAMS_FROZEN,
            [
                f"requires_grad is False on {_names(stray)} (not listed in frozen=)",
            ],
            stray,
        )
    # 6. backward
    if ev.error is not None:
        return Stage.BACKWARD_FAILED, [error_text], []
    # 7. gradients present
    missing = [n for n in trainable if not ev.grad_calls.get(n)]
    if missing:
        lines = [f"no gradient reached {_names(missing)} ({len(got)} of {len(requires)} trainable did)"]
        if not got:
            lines.append("the loss is connected to the parameters: was loss.backward() called?")
        return Stage.GRAD_MISSING, lines, missing
    # 8. finite gradients
    bad = [n for n in trainable if not math.isfinite(ev.max_abs.get(n, 0.0))]
    if bad:
        back = [e for e in watch.events if e.phase == "backward"] if watch else []
        lines = [f"{_names(bad)}: gradient holds NaN or Inf while the forward pass and loss are finite"]
        if back:
            lines.append(f"first non-finite backward tensor: {back[0].where}")
        return Stage.GRAD_NON_FINITE, lines, bad
    # 9. magnitudes
    norm = math.sqrt(ev.sq_norm)
    largest = max((ev.max_abs.get(n, 0.0) for n in trainable), default=0.0)
    if norm > max_grad_norm:
        return Stage.GRAD_MAGNITUDE, [f"total gradient norm {norm:.4g} > max_grad_norm={max_grad_norm:g}"], []
    if trainable and largest < min_grad:
        return (
            Stage.GRAD_MAGNITUDE,
            [f"every gradient is below min_grad={min_grad:g} (largest |g| = {largest:.4g})"],
            trainable,
        )
    # 10. optimizer coverage
    in_opt = optimizer_parameter_ids(optimizer)
    outside = [n for n, p in named if n in trainable and id(p) not in in_opt]
    if outside:
        return (
            Stage.NOT_IN_OPTIMIZER,
            [f"{_names(outside)} get gradients but no param group of the optimizer holds them"],
            outside,
        )
    # 11. leftovers from the previous iteration
    stale = [n for n in trainable if ev.leftover.get(n, 0.0) != 0.0]
    if stale:
        return (
            Stage.GRADS_ACCUMULATING,
            [
                f"{_names(stale)} still held a non-zero .grad when this step's first backward began",
                f"largest leftover |g| = {max(ev.leftover[n] for n in stale):.4g}",
            ],
            stale,
        )
    # 12. the update
    should_move = [n for n in trainable if ev.max_abs.get(n, 0.0) > 0.0]
    still = [n for n in should_move if not moved.get(n, True)]
    if still or (should_move and ev.optimizer_steps == 0):
        lrs = sorted(
            {g.get("lr") for g in optimizer.param_groups if not isinstance(g.get("lr"), torch.Tensor)}
        )
        return (
            Stage.PARAMS_NOT_UPDATED,
            [
                f"{_names(still or should_move)} had non-zero gradients but did not change",
                f"optimizer.step() was called {ev.optimizer_steps} time(s); learning rate(s) {lrs}",
            ],
            still or should_move,
        )
    return Stage.OK, [], []


def _validate(
    train_step: Any, model: Any, optimizer: Any, steps: Any, max_grad_norm: Any, min_grad: Any
) -> None:
    if not callable(train_step):
        raise TypeError(
            f"expected train_step to be a function of no arguments, got {type(train_step).__name__}"
        )
    require_module(model)
    optimizer_parameter_ids(optimizer)
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"expected steps to be an int >= 1, got {steps!r}")
    if not (isinstance(max_grad_norm, (int, float)) and max_grad_norm > 0):
        raise ValueError(f"expected max_grad_norm > 0, got {max_grad_norm!r}")
    if not (isinstance(min_grad, (int, float)) and min_grad >= 0):
        raise ValueError(f"expected min_grad >= 0, got {min_grad!r}")


def diagnose(
    train_step: Callable[[], Any],
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    *,
    steps: int = 2,
    frozen: Iterable[str] = (),
    max_grad_norm: float = 1e3,
    min_grad: float = 1e-12,
) -> Diagnosis:
    """Run train_step `steps` times under instrumentation and name the first checklist stage that fails.

    train_step is your own zero-argument iteration (forward, loss, backward, optimizer.step())
    returning the loss (or a tuple that starts with it). Autograd errors it raises become
    evidence; other errors propagate.
    Parameters, .grad, buffers, optimizer state and RNG states are restored afterwards, always.
    """
    _validate(train_step, model, optimizer, steps, max_grad_norm, min_grad)
    frozen_names = _check_frozen(model, frozen)
    grad_enabled = torch.is_grad_enabled()
    saved = TrainingState(model, optimizer)
    losses: list[float | None] = []
    try:
        for step in range(1, steps + 1):
            before = snapshot_parameters(model)
            ev = run_probed_step(train_step, model, optimizer)
            losses.append(ev.loss_value)
            changes = parameter_changes(model, before)
            classification = classify_parameter_gradients(model, optimizer)
            stage, evidence, names = _judge(
                ev, model, optimizer, frozen_names,
                max_grad_norm=max_grad_norm, min_grad=min_grad,
                grad_enabled_outside=grad_enabled, moved=changes.changed,
            )  # fmt: skip
            reports = {"gradients": classification, "changes": changes, "non_finite": ev.watch}
            if stage is not Stage.OK or step == steps:
                return Diagnosis(
                    stage=stage,
                    evidence=[e for e in evidence if e] or [f"{steps} step(s) ran; losses {_losses(losses)}"],
                    advice=ADVICE[stage],
                    step=None if stage is Stage.OK else step,
                    steps=steps,
                    names=names,
                    losses=losses,
                    reports=reports,
                    error=ev.error,
                )
        raise AssertionError("unreachable")  # pragma: no cover
    finally:
        saved.restore()


def _losses(losses: list[float | None]) -> str:
    return "[" + ", ".join("-" if v is None else f"{v:.4g}" for v in losses) + "]"
