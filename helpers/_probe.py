"""One training step under instrumentation: grad mode, gradients per parameter, leftovers, steps."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from helpers._stats import dense_values, host_floats
from helpers.nonfinite import NonFiniteWatch

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
    todo, seen = [loss.grad_fn], set()
    while todo and len(seen) < limit:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if id(getattr(node, "variable", None)) in params:
            return True
        todo.extend(fn for fn, _ in node.next_functions)
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
    watch: NonFiniteWatch | None = None

    def __repr__(self) -> str:
        error = type(self.error).__name__ if self.error else None
        return (
            f"StepEvidence(loss={self.loss_value}, error={error}, {len(self.grad_calls)} parameters "
            f"got gradients, optimizer steps={self.optimizer_steps})"
        )


class _Probe:
    """Hooks for one step; the hooks keep 0-dim results on the device, never a gradient."""

    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer) -> None:
        self.model, self.optimizer = model, optimizer
        self.evidence = StepEvidence()
        self.values: list[tuple[str, str, torch.Tensor]] = []  # (kind, name, 0-dim tensor)
        self.handles: list[Any] = []

    def _param_hook(self, name: str, param: nn.Parameter) -> Callable[[torch.Tensor], None]:
        def hook(grad: torch.Tensor) -> None:
            calls = self.evidence.grad_calls.get(name, 0)
            self.evidence.grad_calls[name] = calls + 1
            if calls == 0 and param.grad is not None and param.grad.numel():
                self.values.append(("leftover", name, dense_values(param.grad).abs().amax()))
            g = dense_values(grad)
            if g.numel():
                self.values.append(("max_abs", name, g.abs().amax()))
                self.values.append(("sq", name, torch.linalg.vector_norm(g, dtype=torch.float64) ** 2))

        return hook

    def __enter__(self) -> _Probe:
        def pre(module: nn.Module, args: tuple) -> None:
            self.evidence.forward_grad_modes.append(torch.is_grad_enabled())

        def step_pre(optimizer: torch.optim.Optimizer, args: tuple, kwargs: dict) -> None:
            self.evidence.optimizer_steps += 1

        self.handles.append(self.model.register_forward_pre_hook(pre))
        self.handles.append(self.optimizer.register_step_pre_hook(step_pre))
        for name, param in self.model.named_parameters():
            if param.requires_grad:
                self.handles.append(param.register_hook(self._param_hook(name, param)))
        return self

    def __exit__(self, *exc: object) -> None:
        for handle in self.handles:
            handle.remove()
        self.handles.clear()

    def read(self) -> None:
        """One host read for the loss and every gradient statistic."""
        ev = self.evidence
        loss = ev.loss
        tensors = [v for _, _, v in self.values]
        has_loss = isinstance(loss, torch.Tensor) and loss.numel() == 1 and loss.is_floating_point()
        if has_loss:
            tensors.append(loss.detach().reshape(()))
        numbers = host_floats(tensors)
        if has_loss:
            ev.loss_value = numbers.pop()
        elif isinstance(loss, (int, float)) and not isinstance(loss, bool):
            ev.loss_value = float(loss)
        for (kind, name, _), value in zip(self.values, numbers):
            if kind == "leftover":
                ev.leftover[name] = value
            elif kind == "max_abs":
                ev.max_abs[name] = value if math.isnan(value) else max(ev.max_abs.get(name, 0.0), value)
            else:
                ev.sq_norm += value
        self.values.clear()


def run_probed_step(
    train_step: Callable[[], Any], model: nn.Module, optimizer: torch.optim.Optimizer
) -> StepEvidence:
    """Run train_step once under the probe and a non-finite watch; autograd errors are kept."""
    probe = _Probe(model, optimizer)
    watch = NonFiniteWatch(model)
    probe.evidence.watch = watch
    with probe, watch:
        try:
            result = train_step()
            # a step may return (loss, outputs, ...): the loss comes first
            probe.evidence.loss = result[0] if isinstance(result, (tuple, list)) and result else result
        except RuntimeError as exc:
            if autograd_error_kind(exc) is None:
                raise
            probe.evidence.error = exc
    probe.read()
    return probe.evidence
