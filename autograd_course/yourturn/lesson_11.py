"""Your-turn activities of lesson 11 · Gradients as values."""

from __future__ import annotations

import math
from typing import Any

from autograd_course.yourturn.answers import number_of
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


def _check_input_gradient(input_gradient: Any) -> tuple:
    import torch
    from torch import nn

    if not callable(input_gradient):
        return incorrect(f"expected input_gradient to be a function, got {type(input_gradient).__name__}")
    torch.manual_seed(0)
    critic = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    points = torch.randn(5, 3).requires_grad_()
    grad = input_gradient(critic(points), points)
    if not isinstance(grad, torch.Tensor) or grad.shape != points.shape:
        return incorrect(f"expected a tensor shaped like points, (5, 3), got {type(grad).__name__} {grad!r}")
    (reference,) = torch.autograd.grad(critic(points).sum(), points)
    if not torch.allclose(grad.detach(), reference):
        return incorrect("those are not the values of d out.sum() / d points")
    if grad.grad_fn is None:
        return incorrect(
            "the gradient has no grad_fn: it is a constant, so a penalty built from it trains nothing"
        )
    penalty = ((grad.norm(dim=1) - 1) ** 2).mean()
    penalty.backward()
    weight_grad = critic[0].weight.grad
    if weight_grad is None or not bool(weight_grad.abs().sum() > 0):
        return incorrect("the penalty's backward did not reach the critic's first layer")
    return correct(
        "create_graph=True: the gradient carries a grad_fn and the penalty reaches the critic's weights."
    )


def _reverse_mode_refused() -> Any:
    """f(t) = sum(exp(2t) sin(3t)) with a jvp and a backward that refuses: it tells the two modes apart."""
    import torch

    class ForwardOnly(torch.autograd.Function):
        generate_vmap_rule = True  # so torch.func.jacfwd may run it too

        @staticmethod
        def forward(t: Any) -> Any:
            return (torch.exp(2 * t) * torch.sin(3 * t)).sum()

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            ctx.save_for_forward(inputs[0])

        @staticmethod
        def jvp(ctx: Any, dt: Any) -> Any:
            (t,) = ctx.saved_tensors
            return (torch.exp(2 * t) * (2 * torch.sin(3 * t) + 3 * torch.cos(3 * t)) * dt).sum()

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            raise RuntimeError("REVERSE MODE: a backward pass ran")

    return ForwardOnly.apply


def _directional_value(directional_derivative: Any, f: Any, x: Any, u: Any) -> Any:
    """The learner's value as a float, or the incorrect verdict that says why there is none."""
    import torch

    try:
        with torch.no_grad():
            got = directional_derivative(f, x, u)
    except RuntimeError as exc:
        if "REVERSE MODE" in str(exc):
            return incorrect(
                "it ran a backward pass (reverse mode: torch.func.grad, vjp, jacrev or .backward()); "
                "forward mode pushes u through f with the value: torch.func.jvp"
            )
        return incorrect(
            f"it raised under torch.no_grad() ({str(exc).splitlines()[0][:80]}): "
            "backward is not available here; forward mode needs none"
        )
    value = got.item() if isinstance(got, torch.Tensor) and got.numel() == 1 else got
    if not isinstance(value, float):
        return incorrect(f"expected a float (the J u of jvp, .item()), got {type(got).__name__} {got!r}")
    return value


def _check_directional_derivative(directional_derivative: Any) -> tuple:
    import torch

    if not callable(directional_derivative):
        return incorrect(f"expected a function of (f, x, u), got {type(directional_derivative).__name__}")
    gen = torch.Generator().manual_seed(3)
    cases = [
        (lambda t: (torch.exp(2 * t) * torch.sin(3 * t)).sum(), 8),
        (lambda t: torch.log1p(t**2).mean() * t.sum(), 6),
        (_reverse_mode_refused(), 5),
    ]
    for f, n in cases:
        x, u = torch.randn(n, generator=gen), torch.randn(n, generator=gen)
        exact = torch.func.jvp(f, (x.double(),), (u.double(),))[1].item()  # forward mode in float64
        value = _directional_value(directional_derivative, f, x, u)
        if not isinstance(value, float):
            return value
        if abs(value - exact) > 2e-6 * max(1.0, abs(exact)):
            return incorrect(
                f"got {value:.7g}, exact {exact:.7g}: a finite difference in float32 cannot get this close; "
                "use torch.func.jvp"
            )
    return correct("forward mode: exact to rounding in float32, with no backward pass and no epsilon.")


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
        task="Write input_gradient(out, points): d out.sum() / d points, differentiable again.",
        names=("input_gradient",),
        check=_check_input_gradient,
        hints=(
            "By default torch.autograd.grad returns a constant: a leaf without grad_fn.",
            "One keyword argument of torch.autograd.grad records the backward pass itself.",
        ),
        solution=(
            "def input_gradient(out, points):\n"
            "    (grad,) = torch.autograd.grad(out.sum(), points, create_graph=True)\n"
            "    return grad"
        ),
    ),
    Activity(
        id="11.3",
        task="Write directional_derivative(f, x, u): the derivative of f at x along u, by forward mode.",
        names=("directional_derivative",),
        check=_check_directional_derivative,
        hints=(
            "torch.func.jvp(f, (x,), (u,)) returns two things: f(x) and J u.",
            "For a scalar f, J u is a 0-dimensional tensor: .item() makes it a float.",
        ),
        solution=(
            "def directional_derivative(f, x, u):\n"
            "    _, tangent = jvp(f, (x,), (u,))\n"
            "    return tangent.item()"
        ),
    ),
)
