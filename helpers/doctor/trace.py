"""What one step did, in order, beyond what the probe's hooks see: each backward() and
optimizer.step(), each gradient clipping call of torch.nn.utils (what it received, whether an
optimizer.step() had already used the gradients), the loss functions and constant terms
(loss_calls.py), the modules whose behaviour eval() changes that ran in eval mode, the modules outside
the model that ran with parameters that require grad, and the warnings the step raised.

Everything is replaced or hooked for the step only and put back when it ends.

A clipping function is hooked where it runs, not only where it is looked up: torch wraps each one
in a no-grad wrapper that calls the function held in its closure, and the trace swaps that held
function for a recorder. A step that imported `clip_grad_norm_` by name before the diagnosis (its
module holds the wrapper itself, which no attribute of torch.nn.utils reaches) is then seen too.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn
from torch.nn.modules.module import register_module_forward_pre_hook

from helpers.doctor.buffer_weights import WeightUses
from helpers.doctor.loss_calls import LossCalls, user_line

__all__ = ["MODE_DEPENDENT", "ClipCall", "StepTrace", "StepWarning"]

_optim = importlib.import_module("torch.optim.optimizer")
_clip_module = importlib.import_module("torch.nn.utils.clip_grad")
_CLIPS = ("clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_")
_INNER = ("clip_grad_norm_", "clip_grad_value_", "_clip_grads_with_norm_")  # as clip_grad names them
# modules whose forward differs between train() and eval() (and RNNs with dropout between layers)
MODE_DEPENDENT = (
    nn.modules.dropout._DropoutNd,
    nn.modules.batchnorm._BatchNorm,
    nn.modules.instancenorm._InstanceNorm,
    nn.RReLU,
)


def _held_function(wrapper: Any) -> Any:
    """The closure cell of torch's no-grad wrapper that holds the function it calls, or None when
    `wrapper` is not such a wrapper."""
    code, closure = getattr(wrapper, "__code__", None), getattr(wrapper, "__closure__", None)
    if code is None or closure is None or "func" not in code.co_freevars:
        return None
    cell = closure[code.co_freevars.index("func")]
    return cell if callable(cell.cell_contents) else None


@dataclass(frozen=True)
class ClipCall:
    """One gradient clipping call: what it received and where in the step it ran."""

    function: str
    received: int  # tensors it was given
    with_grad: int  # of those, how many held a .grad
    after_step: bool  # an optimizer.step() ran after the last backward, before this call
    where: str
    before_backward: bool = False  # no backward had run yet in this step
    at: int = 0  # how many backward() and step() calls of the step had run before it
    nonzero: int = 0  # of those with a .grad, how many held a non-zero one (counted before backward only)

    def __repr__(self) -> str:
        return f"ClipCall({self.function}, {self.received} tensors, after_step={self.after_step})"


@dataclass(frozen=True)
class StepWarning:
    """A warning the step raised."""

    category: str
    message: str
    where: str

    def __repr__(self) -> str:
        return f"StepWarning({self.category}: {self.message[:60]})"


@dataclass
class StepTrace:
    """Records one step (see the module's docstring); `.order` lists "backward" and "step" as they ran."""

    model: nn.Module
    order: list[str] = field(default_factory=list)
    clips: list[ClipCall] = field(default_factory=list)
    losses: LossCalls = field(default_factory=LossCalls)
    weights: WeightUses = field(default_factory=WeightUses)  # tensors without grad used as weights
    eval_modules: dict[str, str] = field(default_factory=dict)  # name -> class, ran in eval mode
    outside: dict[int, str] = field(default_factory=dict)  # id(parameter) -> its module outside the model
    warnings: list[StepWarning] = field(default_factory=list)
    _saved: list[tuple[Any, str, Any]] = field(default_factory=list)
    _handles: list[Any] = field(default_factory=list)
    _records: list[Any] | None = None
    _catcher: Any = None
    _clipping: bool = False

    def _clip(self, name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        name = name.lstrip("_")  # _clip_grads_with_norm_ is public as clip_grads_with_norm_

        def clip(*args: Any, **kwargs: Any) -> Any:
            if self._clipping:  # clip_grad_norm_ calling clip_grads_with_norm_: one call
                return original(*args, **kwargs)
            given = kwargs.pop("parameters") if "parameters" in kwargs else args[0]
            params = [given] if isinstance(given, torch.Tensor) else list(given)
            after = "step" in self.order and self.order[-1] == "step"
            grads = [g for g in (getattr(p, "grad", None) for p in params) if g is not None]
            early = "backward" not in self.order
            nonzero = sum(1 for g in grads if bool(g.any())) if early else len(grads)
            self.clips.append(
                ClipCall(name, len(params), len(grads), after, user_line(), early, nonzero, len(self.order))
            )
            self._clipping = True
            try:
                return original(params, *args[1:], **kwargs)
            finally:
                self._clipping = False

        return clip

    def _backward(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def backward(*args: Any, **kwargs: Any) -> Any:
            self.order.append("backward")
            return original(*args, **kwargs)

        return backward

    def _on_step(self, optimizer: torch.optim.Optimizer, args: tuple, kwargs: dict) -> None:
        self.order.append("step")

    def _on_forward(self, module: nn.Module, args: tuple) -> None:
        if not torch.is_grad_enabled():
            return
        name = self._names.get(id(module))
        if name is None:
            for p in module.parameters(recurse=False):
                if p.requires_grad and id(p) not in self.outside:
                    self.outside[id(p)] = repr(module).split("\n")[0]
        elif not module.training and (
            isinstance(module, MODE_DEPENDENT) or (isinstance(module, nn.RNNBase) and module.dropout > 0)
        ):
            self.eval_modules.setdefault(name or "the model", type(module).__name__)

    def _replace(self, owner: Any, names: Iterable[str], make: Callable[[str, Any], Any]) -> None:
        for name in names:
            original = getattr(owner, name)
            self._saved.append((owner, name, original))
            setattr(owner, name, make(name, original))

    def _hook_clips(self) -> None:
        """Each clipping function recorded wherever it is bound: the function inside torch's no-grad
        wrapper replaced by a recorder (put back at exit). Where a torch has no such wrapper, the
        names of torch.nn.utils and of clip_grad are replaced instead."""
        cells = {name: _held_function(getattr(_clip_module, name)) for name in _INNER}
        if all(cell is not None for cell in cells.values()):
            for name, cell in cells.items():
                self._replace(cell, ("cell_contents",), lambda _, original, n=name: self._clip(n, original))
            return
        self._replace(torch.nn.utils, _CLIPS, self._clip)
        self._replace(_clip_module, _INNER, lambda name, original: getattr(torch.nn.utils, name.lstrip("_")))

    def __enter__(self) -> StepTrace:
        self._names = {id(m): n for n, m in self.model.named_modules()}
        self._catcher = warnings.catch_warnings(record=True)
        self._records = self._catcher.__enter__()
        self._hook_clips()
        self._replace(torch.autograd, ("backward",), lambda name, original: self._backward(original))
        self.losses.__enter__()
        self.weights.watch(self.model).__enter__()
        self._handles = [
            _optim.register_optimizer_step_pre_hook(self._on_step),
            register_module_forward_pre_hook(self._on_forward),
        ]
        return self

    def __exit__(self, *exc: object) -> None:
        for handle in self._handles:
            handle.remove()
        self.weights.__exit__()
        self.losses.__exit__()
        for owner, name, original in reversed(self._saved):
            setattr(owner, name, original)
        self._saved.clear()
        if self._catcher is not None:
            self._catcher.__exit__(None, None, None)
            self.warnings = [
                StepWarning(w.category.__name__, str(w.message), f"{w.filename}:{w.lineno}")
                for w in self._records or []
            ]
            self._catcher = None

    def __repr__(self) -> str:
        return f"StepTrace({self.order}, {len(self.clips)} clip calls, {len(self.warnings)} warnings)"
