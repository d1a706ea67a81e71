"""What the loss is computed from, recorded during one step: each call of a loss function of
torch.nn.functional (its input's grad_fn, whether its target requires grad) and each constant that
is added to a tensor that requires grad (a term of the loss that carries no gradient).

The functions are replaced in their modules for the step only (nn.MSELoss and the other loss modules
call them there), and Tensor's addition operators likewise; everything is put back when it ends.
"""

from __future__ import annotations

import linecache
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.nn import functional as F

__all__ = ["ConstantTerm", "LossCall", "LossCalls", "user_line"]

_TORCH_DIR = os.path.dirname(torch.__file__).replace("\\", "/") + "/"
_HELPERS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))).replace("\\", "/") + "/"
LOSSES = (
    "mse_loss",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "nll_loss",
)
_ADDS = ("__add__", "__radd__", "__iadd__")


def user_line(depth: int = 2) -> str:
    """Where the user's code called in: "file.py:12: the source line", the first frame outside torch
    and the toolkit."""
    frame: Any = sys._getframe(depth)
    while frame is not None:
        file = frame.f_code.co_filename.replace("\\", "/")
        if not file.startswith((_TORCH_DIR, _HELPERS_DIR)):
            source = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
            return f"{os.path.basename(file)}:{frame.f_lineno}" + (f": {source}" if source else "")
        frame = frame.f_back
    return "torch's own code"


def _fn_name(t: Any) -> str | None:
    fn = getattr(t, "grad_fn", None)
    return type(fn).__name__ if fn is not None else None


@dataclass(frozen=True)
class LossCall:
    """One loss function call: what its input and its target were."""

    function: str
    input_fn: str | None  # the grad_fn of its input ("SigmoidBackward0"), None for a leaf
    target_requires_grad: bool
    target_fn: str | None
    where: str

    def __repr__(self) -> str:
        target = self.target_requires_grad
        return f"LossCall({self.function}, input {self.input_fn}, target requires grad {target})"


@dataclass(frozen=True)
class ConstantTerm:
    """A one-element tensor without a gradient added to one that requires grad."""

    node: Any  # the grad_fn of the sum
    value: torch.Tensor  # the constant's value before the addition, still on its device
    where: str

    def __repr__(self) -> str:
        return f"ConstantTerm({self.where})"


@dataclass
class LossCalls:
    """Records the step's loss function calls and constant terms (see the module's docstring)."""

    calls: list[LossCall] = field(default_factory=list)
    constants: list[ConstantTerm] = field(default_factory=list)
    _saved: list[tuple[Any, str, Any]] = field(default_factory=list)

    def _loss(self, name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def call(input: Any, target: Any, *args: Any, **kwargs: Any) -> Any:
            if torch.is_grad_enabled() and isinstance(target, torch.Tensor):
                self.calls.append(
                    LossCall(name, _fn_name(input), target.requires_grad, _fn_name(target), user_line())
                )
            return original(input, target, *args, **kwargs)

        return call

    def _add(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def add(this: torch.Tensor, other: Any, *args: Any, **kwargs: Any) -> Any:
            if not (torch.is_grad_enabled() and isinstance(other, torch.Tensor)):
                return original(this, other, *args, **kwargs)
            constant = None
            if this.requires_grad and not other.requires_grad:
                constant = other
            elif other.requires_grad and not this.requires_grad:
                constant = this
            if constant is None or constant.numel() != 1 or not constant.is_floating_point():
                return original(this, other, *args, **kwargs)
            value = constant.detach().clone()  # before an in-place += changes it
            out = original(this, other, *args, **kwargs)
            self.constants.append(ConstantTerm(getattr(out, "grad_fn", None), value, user_line()))
            return out

        return add

    def __enter__(self) -> LossCalls:
        for name in LOSSES:
            original = getattr(F, name)
            self._saved.append((F, name, original))
            setattr(F, name, self._loss(name, original))
        for name in _ADDS:
            self._saved.append((torch.Tensor, name, torch.Tensor.__dict__.get(name)))
            setattr(torch.Tensor, name, self._add(getattr(torch.Tensor, name)))
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, name, original in reversed(self._saved):
            if original is None:
                delattr(owner, name)
            else:
                setattr(owner, name, original)
        self._saved.clear()

    def __repr__(self) -> str:
        return f"LossCalls({len(self.calls)} loss calls, {len(self.constants)} constant terms)"
