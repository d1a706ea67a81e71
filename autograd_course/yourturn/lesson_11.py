"""Your-turn activities of lesson 11 · Gradients as values."""

from __future__ import annotations

import math
from typing import Any

from autograd_course.yourturn.answers import number_of
from autograd_course.yourturn.choice import which_ones
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _check_predicted_vjp(predicted_vjp: Any) -> tuple:
    given = predicted_vjp.tolist() if hasattr(predicted_vjp, "tolist") else predicted_vjp
    numbers = isinstance(given, (list, tuple)) and all(number_of(v) is not None for v in given)
    if not numbers or len(given) != 3:
        return incorrect(f"expected a list of three numbers such as [1.0, 1.0, 1.0], got {predicted_vjp!r}")
    values = [number_of(v) for v in given]
    if all(math.isclose(a, b) for a, b in zip(values, (2.0, 4.0, 6.0))):
        return incorrect(
            "[2, 4, 6] is 2x, the gradient for v = ones; here v weights each element: [1, 0, -1]"
        )
    if not all(math.isclose(a, b, abs_tol=1e-9) for a, b in zip(values, (2.0, 0.0, -6.0))):
        return incorrect(
            f"you predicted {list(values)}; x.grad is v times the diagonal 2x, element by element"
        )
    return correct("vᵀJ with J = diag(2x) = diag(2, 4, 6) and v = [1, 0, -1] gives [2, 0, -6].")


FIRST_GRADS_112 = {  # four first derivatives of x at 2.0; which can be differentiated again?
    "a": lambda torch, x: torch.autograd.grad(x**3, x, create_graph=True)[0],
    "b": lambda torch, x: torch.autograd.grad(x**3, x, retain_graph=True)[0],
    "c": lambda torch, x: torch.autograd.grad(torch.sin(x).sum(), x, create_graph=True)[0],
    "d": lambda torch, x: torch.autograd.grad(x**3, x, create_graph=True)[0].detach(),
}


def _differentiable_again() -> dict[str, bool]:
    """Whether torch.autograd.grad can take each first derivative's own gradient, found by trying it."""
    import torch

    again = {}
    for letter, first in FIRST_GRADS_112.items():
        x = torch.tensor([2.0], requires_grad=True)
        try:
            torch.autograd.grad(first(torch, x).sum(), x)
        except RuntimeError:
            again[letter] = False
        else:
            again[letter] = True
    return again


WHY_112 = {
    "a": "create_graph=True records the backward pass, and 3x² depends on x, so it has a grad_fn",
    "b": "retain_graph keeps the forward's record alive but does not record the backward pass: no grad_fn",
    "c": "create_graph=True records the backward pass, and cos(x) depends on x, so it has a grad_fn",
    "d": "detach() drops the record create_graph=True made",
}
_check_again = which_ones(
    _differentiable_again, "give a derivative that can be differentiated again", WHY_112
)


def _hvp_cases() -> list:
    """(f, w, v) triples: two functions of a 3-vector whose Hessians are not diagonal."""
    import torch

    def cubic(w):
        return (w**3).sum() + w[0] * w[1] * w[2]

    def smooth(w):
        return torch.log(1 + torch.exp(w @ torch.tensor([1.0, -2.0, 0.5]))) + (w.sin() ** 2).sum()

    w = torch.tensor([0.5, -1.0, 2.0])
    v = torch.tensor([1.0, 0.5, -2.0])
    return [(cubic, w, v), (smooth, w.flip(0), v.flip(0))]


def _check_hvp(hvp: Any) -> tuple:
    import torch

    if not callable(hvp):
        return incorrect(f"expected hvp to be a function, got {type(hvp).__name__}")
    for f, w, v in _hvp_cases():
        expected = torch.autograd.functional.hvp(f, w, v)[1]
        leaf = w.clone().requires_grad_()
        got = hvp(f, leaf, v)
        if leaf.grad is not None:
            return incorrect("w.grad was written: take gradients as values with torch.autograd.grad")
        if not isinstance(got, torch.Tensor) or got.shape != w.shape:
            return incorrect(f"expected a tensor of w's shape {tuple(w.shape)}, got {got!r}")
        if torch.allclose(got, torch.autograd.grad(f(leaf), leaf)[0]):
            return incorrect("that is the gradient of f; differentiate the gradient once more, along v")
        if not torch.allclose(got.detach(), expected, atol=1e-5):
            return incorrect(
                f"for one of the test functions H v is {expected.tolist()}, you gave {got.tolist()}"
            )
    return correct("the gradient, recorded with create_graph, differentiated once more along v: H v.")


ACTIVITIES = (
    Activity(
        id="11.1",
        task="Predict x.grad after (x ** 2).backward(v) at x = [1, 2, 3], v = [1, 0, -1].",
        names=("predicted_vjp",),
        check=_check_predicted_vjp,
        hints=(
            "backward(v) computes vᵀJ; for y = x² the Jacobian J is diagonal.",
            "Each element: v_i * 2 x_i.",
        ),
        solution="predicted_vjp = [2.0, 0.0, -6.0]",
    ),
    Activity(
        id="11.2",
        task="Predict which of four first derivatives torch.autograd.grad can differentiate a second time.",
        names=("again",),
        check=_check_again,
        hints=(
            "A second derivative needs a record of how the first one was computed: a grad_fn.",
            "retain_graph keeps the forward's record alive; it does not record the backward pass itself.",
            "detach() drops whatever record a tensor had.",
        ),
        solution='again = {"a", "c"}',
    ),
    Activity(
        id="11.3",
        task="Write hvp(f, w, v): the Hessian of f at w times v, leaving w.grad untouched.",
        names=("hvp",),
        check=_check_hvp,
        hints=(
            "H v is the gradient of (∇f · v) with respect to w; ∇f must be differentiable for that.",
            "g = torch.autograd.grad(f(w), w, create_graph=True)[0], then torch.autograd.grad(g @ v, w).",
        ),
        solution=(
            "def hvp(f, w, v):\n"
            "    (g,) = torch.autograd.grad(f(w), w, create_graph=True)\n"
            "    (hv,) = torch.autograd.grad((g * v).sum(), w)\n"
            "    return hv"
        ),
    ),
)
