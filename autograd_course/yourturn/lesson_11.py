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


def _differentiable_again() -> set[str]:
    """The first derivatives whose own gradient torch.autograd.grad can take, found by trying each one."""
    import torch

    again = set()
    for letter, first in FIRST_GRADS_112.items():
        x = torch.tensor([2.0], requires_grad=True)
        try:
            torch.autograd.grad(first(torch, x).sum(), x)
        except RuntimeError:
            continue
        again.add(letter)
    return again


_check_again = which_ones(_differentiable_again, "abcd", "can be differentiated again")


def _ways_113() -> dict:
    """Four ways to compute the derivative of f at x along u, each a function of (torch, f, x, u)."""

    def central_difference(torch, f, x, u):
        return ((f(x + 1e-3 * u) - f(x - 1e-3 * u)) / 2e-3).item()

    def func_jvp(torch, f, x, u):
        return torch.func.jvp(f, (x,), (u,))[1].item()

    def backward_then_dot(torch, f, x, u):
        leaf = x.clone().requires_grad_()
        f(leaf).backward()
        return (leaf.grad * u).sum().item()

    def dual_numbers(torch, f, x, u):
        fwd = torch.autograd.forward_ad
        with fwd.dual_level():
            return fwd.unpack_dual(f(fwd.make_dual(x, u))).tangent.item()

    return {"a": central_difference, "b": func_jvp, "c": backward_then_dot, "d": dual_numbers}


def _exact_ways() -> set[str]:
    """The ways that run under no_grad and land within 2e-6 (relative) of the float64 value."""
    import torch

    gen = torch.Generator().manual_seed(3)
    x, u = torch.randn(8, generator=gen), torch.randn(8, generator=gen)

    def f(t):
        return (torch.exp(2 * t) * torch.sin(3 * t)).sum()

    exact = torch.func.jvp(f, (x.double(),), (u.double(),))[1].item()
    exact_ways = set()
    for letter, way in _ways_113().items():
        try:
            with torch.no_grad():
                value = way(torch, f, x, u)
        except RuntimeError:
            continue
        if abs(value - exact) <= 2e-6 * abs(exact):
            exact_ways.add(letter)
    return exact_ways


_check_exact_ways = which_ones(_exact_ways, "abcd", "run under no_grad and are exact to 2e-6 in float32")


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
        task="Predict which of four directional derivatives work under no_grad, exact in float32.",
        names=("exact_ways",),
        check=_check_exact_ways,
        hints=(
            "Two questions for each way: does it need a backward pass (refused when nothing is recorded)?"
            " Does it divide a float32 difference by a small step?",
            "Forward mode carries the tangent with the value in the same pass; no_grad stops only recording.",
        ),
        solution='exact_ways = {"b", "d"}',
    ),
)
