"""One training step under instrumentation: grad mode, gradients per parameter, leftovers, steps."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn
from torch.optim import optimizer as _optim

from helpers._stats import abs_max, dense_values, host_floats, on_device
from helpers.doctor.nonfinite import NonFiniteWatch
from helpers.doctor.raised import RaisedAt, locate_error
from helpers.doctor.state import TrainingState, _fingerprint
from helpers.doctor.steplog import OptimizerStep, StepLog
from helpers.doctor.trace import StepTrace
from helpers.graph import backward_nodes
from helpers.parameters import moved_elements

__all__ = ["StepEvidence", "autograd_error_kind", "loss_reaches", "run_probed_step"]

# Autograd errors, by what they mean for the checklist; anything else is not ours to explain.
_NOT_IN_GRAPH = re.compile(r"does not require grad and does not have a grad_fn")
_BACKWARD = re.compile(
    r"modified by an inplace operation|backward through the graph a second time|"
    r"grad can be implicitly created only for scalar outputs|"
    r"a leaf Variable that requires grad is being used in an in-place operation|"
    r"Can't call numpy\(\) on Tensor that requires grad|"
    r"Inference tensors cannot be saved for backward"
)


def autograd_error_kind(exc: BaseException) -> str | None:
    """ "not_in_graph", "backward", or None when the error has nothing to do with autograd."""
    if not isinstance(exc, RuntimeError):
        return None
    text = str(exc)
    if _NOT_IN_GRAPH.search(text):
        return "not_in_graph"
    if _BACKWARD.search(text):
        return "backward"
    return None


def loss_reaches(loss: Any, params: set[int], limit: int = 200_000) -> bool:
    """Whether the loss's recorded graph ends in any of the given parameters (by id)."""
    if not isinstance(loss, torch.Tensor):
        return False
    if id(loss) in params:
        return True
    for count, node in enumerate(backward_nodes(loss.grad_fn)):
        if count >= limit:
            break
        if id(getattr(node, "variable", None)) in params:
            return True
    return False


@dataclass
class StepEvidence:
    """What one step showed; device values already read back to Python numbers."""

    loss: Any = None  # what train_step returned
    loss_value: float | None = None
    error: BaseException | None = None
    forward_grad_modes: list[bool] = field(default_factory=list)  # one per call of the model
    grad_calls: dict[str, int] = field(default_factory=dict)  # parameter -> backward hook calls
    max_abs: dict[str, float] = field(default_factory=dict)  # parameter -> max |incoming grad|
    sq_norm: float = 0.0  # sum of squared incoming gradients, all parameters and passes
    leftover: dict[str, float] = field(default_factory=dict)  # max |.grad| before the first backward
    optimizer_steps: int = 0
    lrs: list[float] | None = None  # each param group's lr as the first optimizer.step() used it
    scale: float | None = None  # the GradScaler's scale during this step (gradients divided by it)
    scale_after: float | None = None  # its scale after the step (lower: the scaler skipped the step)
    moved: dict[str, bool] = field(default_factory=dict)  # parameter -> changed by this step
    watch: NonFiniteWatch | None = None
    raised: RaisedAt | None = None  # where the error was raised, when train_step raised one
    norms: dict[str, float] = field(default_factory=dict)  # parameter -> norm of its incoming gradients
    step_sq_norm: float | None = None  # with a scale above 1: sum of squared .grad norms at the first step
    bad_before: list[str] = field(default_factory=list)  # parameters non-finite before this step moved them
    bad_after: list[str] = field(default_factory=list)  # parameters non-finite after this step
    optimizer_log: list[OptimizerStep] = field(default_factory=list)  # every optimizer.step(), any optimizer
    checkpointed: dict[str, str] = field(default_factory=dict)  # module -> where a checkpoint ran it
    cleared_at_step: list[str] = field(default_factory=list)  # got gradients, but .grad was None at step()
    used: dict[str, float] = field(default_factory=dict)  # parameter -> max |.grad| an optimizer.step() used
    trace: StepTrace | None = None  # clip calls, loss calls, eval-mode modules, warnings (trace.py)

    @property
    def skipped_by_scaler(self) -> bool:
        """The GradScaler found non-finite gradients, skipped optimizer.step() and lowered its scale."""
        return (
            self.scale is not None
            and self.scale_after is not None
            and self.scale_after < self.scale
            and self.optimizer_steps == 0
        )

    def __repr__(self) -> str:
        error = type(self.error).__name__ if self.error else None
        return (
            f"StepEvidence(loss={self.loss_value}, error={error}, {len(self.grad_calls)} parameters "
            f"got gradients, optimizer steps={self.optimizer_steps})"
        )


class _Probe:
    """Hooks for one step; the hooks keep 0-dim results on the device, never a gradient."""

    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer, state: TrainingState) -> None:
        self.model, self.optimizer, self.state = model, optimizer, state
        self.evidence = StepEvidence()
        self.values: list[tuple[str, str, torch.Tensor]] = []  # (kind, name, 0-dim tensor)
        self.handles: list[Any] = []
        self.prints: dict[str, torch.Tensor] = {}  # parameter -> fingerprint before this step moved it

    def _before_change(self, name: str, param: torch.Tensor) -> None:
        """Fingerprint a parameter (once per step) before this step's update can change it."""
        if name not in self.prints:
            self.prints[name] = _fingerprint(param)

    def _param_hook(self, name: str, param: nn.Parameter) -> Callable[[torch.Tensor], None]:
        def hook(grad: torch.Tensor) -> None:
            self._before_change(name, param)
            calls = self.evidence.grad_calls.get(name, 0)
            self.evidence.grad_calls[name] = calls + 1
            if calls == 0 and param.grad is not None and param.grad.numel():
                self.values.append(("leftover", name, abs_max(param.grad)))
            g = dense_values(grad)
            if g.numel():  # 0-dim results only: the gradient itself is never kept
                self.values.append(("max_abs", name, abs_max(g)))
                self.values.append(("norm", name, torch.linalg.vector_norm(g)))

        return hook

    def _step_used(self, optimizer: torch.optim.Optimizer, args: tuple, kwargs: dict) -> None:
        """The gradient any optimizer.step() just used, for the model's parameters it holds: what says
        whether a parameter should have moved (a backward after the step, e.g. a GAN generator's
        through the critic, leaves gradients no step used). A .grad that is None is not recorded: the
        gradients backward gives (before or after the step) then say it should have moved. L-BFGS at an
        lr above 0 stops by itself when its tolerances say it converged: counted as 0."""
        names = {id(p): n for n, p in self.model.named_parameters()}
        for group in optimizer.param_groups:
            stops = isinstance(optimizer, torch.optim.LBFGS) and group.get("lr", 0.0) > 0
            for p in group["params"]:
                if id(p) in names and (stops or p.grad is not None):  # None: the step had nothing to use
                    used = torch.zeros((), device=p.device) if stops else abs_max(p.grad).float()
                    self.values.append(("used", names[id(p)], used))

    def _cleared(self, optimizer: torch.optim.Optimizer) -> None:
        """The optimizer's parameters that received gradients in this step but whose .grad is None as
        optimizer.step() starts: something cleared them between backward and the step."""
        held = {id(p) for g in optimizer.param_groups for p in g["params"]}
        cleared = self.evidence.cleared_at_step
        for name, param in self.model.named_parameters():
            if (
                self.evidence.grad_calls.get(name)
                and param.grad is None
                and id(param) in held
                and name not in cleared
            ):
                cleared.append(name)

    def __enter__(self) -> _Probe:
        def pre(module: nn.Module, args: tuple) -> None:
            self.evidence.forward_grad_modes.append(torch.is_grad_enabled())

        def step_pre(optimizer: torch.optim.Optimizer, args: tuple, kwargs: dict) -> None:
            self.evidence.optimizer_steps += 1
            self._cleared(optimizer)
            if self.evidence.lrs is None:
                self.evidence.lrs = [float(g.get("lr", 0.0)) for g in optimizer.param_groups]
                self.state.keep_optimizer()
                # the step's own gradient norms answer one question, clipped_while_scaled's
                scaled = bool(self.evidence.scale and self.evidence.scale > 1.0)
                for name, param in self.model.named_parameters():
                    self._before_change(name, param)
                    if scaled and param.grad is not None and param.grad.numel():  # what the update will use
                        self.values.append(
                            ("step_norm", name, torch.linalg.vector_norm(dense_values(param.grad)))
                        )

        self.handles.append(self.model.register_forward_pre_hook(pre))
        self.handles.append(self.optimizer.register_step_pre_hook(step_pre))
        self.handles.append(_optim.register_optimizer_step_post_hook(self._step_used))
        for name, param in self.model.named_parameters():
            if param.requires_grad:
                self.handles.append(param.register_hook(self._param_hook(name, param)))
        return self

    def __exit__(self, *exc: object) -> None:
        for handle in self.handles:
            handle.remove()
        self.handles.clear()

    @torch.no_grad()
    def read(self, exact_before: bool) -> None:
        """One host read for the loss, every gradient statistic and what the step moved.

        With a GradScaler the statistics are divided by its scale: they describe the gradients
        the optimizer sees. `exact_before`: compare with the values kept before diagnose (the
        first step), else with fingerprints taken before this step changed them.
        """
        ev = self.evidence
        loss = ev.loss
        named = dict(self.model.named_parameters())
        moved_names = [n for n in self.prints if n in named]
        prints_after = {n: _fingerprint(named[n]) for n in moved_names}
        moved: list[torch.Tensor] = []
        for n in moved_names:
            p, kept = named[n], self.state.before(named[n])
            if exact_before and kept is not None:
                moved.append(moved_elements(p.detach(), on_device(kept, p.device)).any().double())
            else:
                moved.append(moved_elements(prints_after[n], self.prints[n]).any().double())
        # min and max (a fingerprint's last two) are finite exactly when every element is
        finite_before = [torch.isfinite(self.prints[n][2:]).all().double() for n in moved_names]
        finite_after = [torch.isfinite(prints_after[n][2:]).all().double() for n in moved_names]
        tensors = [v for _, _, v in self.values] + moved + finite_before + finite_after
        has_loss = isinstance(loss, torch.Tensor) and loss.numel() == 1 and loss.is_floating_point()
        if has_loss:
            tensors.append(loss.detach().reshape(()))
        numbers = host_floats(tensors)
        if has_loss:
            ev.loss_value = numbers.pop()
        elif isinstance(loss, (int, float)) and not isinstance(loss, bool):
            ev.loss_value = float(loss)
        count, k = len(moved_names), len(self.values)
        ev.moved = {n: bool(v) for n, v in zip(moved_names, numbers[k : k + count])}
        before = numbers[k + count : k + 2 * count]
        after = numbers[k + 2 * count : k + 3 * count]
        ev.bad_before = [n for n, v in zip(moved_names, before) if not v]
        ev.bad_after = [n for n, v in zip(moved_names, after) if not v]
        scale = ev.scale or 1.0
        for (kind, name, _), value in zip(self.values, numbers):
            if kind == "leftover":
                ev.leftover[name] = value
            elif kind == "max_abs":
                value /= scale
                ev.max_abs[name] = value if math.isnan(value) else max(ev.max_abs.get(name, 0.0), value)
            elif kind == "used":  # unscaled already: scaler.step unscales before optimizer.step
                ev.used[name] = value if math.isnan(value) else max(ev.used.get(name, 0.0), value)
            elif kind == "step_norm":  # the optimizer sees unscaled gradients (scaler.step unscales)
                ev.step_sq_norm = (ev.step_sq_norm or 0.0) + value**2
            else:
                ev.sq_norm += (value / scale) ** 2
                ev.norms[name] = math.hypot(ev.norms.get(name, 0.0), value / scale)
        self.values.clear()
        self.prints.clear()


def run_probed_step(
    train_step: Callable[[], Any],
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    state: TrainingState,
    scaler: torch.amp.GradScaler | None = None,
    first: bool = True,
) -> StepEvidence:
    """Run train_step once under the probe and a non-finite watch; every error it raises is kept,
    with where it was raised (forward, backward, optimizer step), never re-raised.

    The watch runs compiled code eagerly (torch.compiler.set_stance), so every hook fires.
    """
    probe = _Probe(model, optimizer, state)
    watch = NonFiniteWatch(model)
    log = StepLog(model, optimizer, state, train_step)
    trace = StepTrace(model)
    probe.evidence.watch, probe.evidence.trace = watch, trace
    if scaler is not None:
        probe.evidence.scale = scaler.get_scale()
    with trace, probe, watch, log:
        try:
            result = train_step()
            # a step may return (loss, outputs, ...): the loss comes first
            probe.evidence.loss = result[0] if isinstance(result, (tuple, list)) and result else result
        except Exception as exc:
            probe.evidence.error = exc
            probe.evidence.raised = locate_error(exc, model)
    probe.evidence.optimizer_log = log.steps
    probe.evidence.checkpointed = log.checkpointed
    if scaler is not None:
        probe.evidence.scale_after = scaler.get_scale()
    probe.read(exact_before=first)
    return probe.evidence
