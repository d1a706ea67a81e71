"""Your-turn activities of lesson 00 · The mental model."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import number_of
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _check_predicted_grad(predicted_grad: Any) -> tuple:
    given, predicted_grad = predicted_grad, number_of(predicted_grad)
    if predicted_grad is None:
        return incorrect(f"expected a number such as 7.0, got {type(given).__name__} {given!r}")
    if abs(predicted_grad - 12.0) < 1e-6:
        return correct("d(x³)/dx = 3x² = 12 at x = 2, and autograd agrees.")
    if abs(predicted_grad - 8.0) < 1e-6:
        return incorrect("you gave 8.0, the value of x³ itself; .grad holds the slope 3x², not the output")
    return incorrect(
        f"you gave {predicted_grad}; x.grad after (x**3).backward() at x = 2 is 3x² evaluated at 2"
    )


def _check_fixed_leaf(fixed_w: Any) -> tuple:
    import torch

    w = fixed_w

    if not isinstance(w, torch.Tensor):
        return incorrect(f"expected fixed_w to be a tensor, got {type(w).__name__}")
    if w.tolist() != [1.0, 2.0]:
        return incorrect(f"keep the values [1.0, 2.0]; fixed_w holds {w.tolist()}")
    if not w.requires_grad:
        return incorrect(
            "fixed_w.requires_grad is False, so (fixed_w ** 2).sum() is not recorded and backward() raises"
        )
    if not w.is_leaf:
        name = type(w.grad_fn).__name__
        return incorrect(
            f"fixed_w is not a leaf (grad_fn={name}); create it with requires_grad=True, do not compute it"
        )
    probe = w.detach().clone().requires_grad_(True)
    (probe**2).sum().backward()
    return correct(
        f"fixed_w is a leaf that requires grad; backward() gives fixed_w.grad = {probe.grad.tolist()}."
    )


ACTIVITIES = (
    Activity(
        id="00.1",
        task="Find the bug: `w = torch.tensor([1.0, 2.0])`; `(w ** 2).sum().backward()` raises. "
        "Write the corrected first line as fixed_w.",
        names=("fixed_w",),
        check=_check_fixed_leaf,
        hints=(
            "The error says element 0 of tensors does not require grad: nothing was recorded.",
            "A leaf the recorder follows is created with requires_grad=True.",
        ),
        solution="fixed_w = torch.tensor([1.0, 2.0], device=device, requires_grad=True)",
    ),
    Activity(
        id="00.2",
        task="Predict x.grad after `x = torch.tensor(2.0, requires_grad=True)` and `(x ** 3).backward()`.",
        names=("predicted_grad",),
        check=_check_predicted_grad,
        hints=(
            "backward() stores dz/dx in x.grad; here z = x³.",
            "d(x³)/dx = 3x². Evaluate it at x = 2.",
        ),
        solution="predicted_grad = 12.0",
    ),
)
