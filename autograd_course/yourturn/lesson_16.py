"""Your-turn activities of lesson 16 · Bugs from the field: layers."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.choice import which_ones
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _check_prediction(running_mean_moves: Any) -> tuple:
    if not isinstance(running_mean_moves, bool):
        return incorrect(f"expected True or False, got {type(running_mean_moves).__name__}")
    if running_mean_moves:
        return correct("no_grad stops the recording of the graph, not BatchNorm's training-mode update.")
    return incorrect("you said no; no_grad changes what autograd records, not what the forward pass does")


def _check_function(TanhGate: Any) -> tuple:
    import torch

    if not (isinstance(TanhGate, type) and issubclass(TanhGate, torch.autograd.Function)):
        return incorrect(f"expected a subclass of torch.autograd.Function, got {TanhGate!r}")
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(3, 4, dtype=torch.float64, generator=gen).requires_grad_(True)
    w = torch.randn(3, 4, dtype=torch.float64, generator=gen).requires_grad_(True)
    out = TanhGate.apply(x, w)
    if not torch.allclose(out, torch.tanh(x * w)):
        return incorrect("the forward pass is not tanh(x * w)")
    try:
        ok = torch.autograd.gradcheck(TanhGate.apply, (x, w))
    except RuntimeError as exc:  # gradcheck names the wrong count or the mismatching input
        return incorrect(str(exc).strip().splitlines()[0])
    if not ok:
        return incorrect("the gradients disagree with finite differences")
    return correct("both gradients match finite differences in float64.")


def _backwards_153() -> dict:
    """Five backward bodies for cube(x) = x³, each a function of (torch, x, grad)."""

    def under_no_grad(torch, x, grad):
        with torch.no_grad():
            slope = 3 * x**2
        return grad * slope

    return {
        "a": lambda torch, x, grad: grad * 3 * x * x,
        "b": lambda torch, x, grad: grad * 3 * x.data**2,
        "c": under_no_grad,
        "d": lambda torch, x, grad: grad * 3 * x.clone() ** 2,
        "e": lambda torch, x, grad: grad * torch.tensor(3.0, dtype=x.dtype) * x.pow(2),
    }


def _twice_differentiable() -> dict[str, bool]:
    """Whether gradgradcheck passes with each backward body, found by running it."""
    import torch

    passing = {}
    for letter, body in _backwards_153().items():

        class Cube(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x**3

            @staticmethod
            def backward(ctx, grad, body=body):
                (x,) = ctx.saved_tensors
                return body(torch, x, grad)

        x = torch.tensor([0.5, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
        passing[letter] = torch.autograd.gradgradcheck(Cube.apply, (x,), raise_exception=False)
    return passing


_check_twice = which_ones(_twice_differentiable, "pass gradgradcheck")

ACTIVITIES = (
    Activity(
        id="16.1",
        task=(
            "Predict whether a forward pass under torch.no_grad() in train mode moves BatchNorm's "
            "running mean."
        ),
        names=("running_mean_moves",),
        check=_check_prediction,
        hints=(
            "What does no_grad switch off: the graph, or the module's behaviour?",
            "model.training is still True; the running statistics are updated by the forward pass itself.",
        ),
        solution="running_mean_moves = True",
    ),
    Activity(
        id="16.2",
        task="Write TanhGate, an autograd.Function for tanh(x * w) whose backward returns both gradients.",
        names=("TanhGate",),
        check=_check_function,
        hints=(
            "forward(ctx, x, w) has two tensor inputs, so backward returns two gradients, in that order.",
            "With t = tanh(x * w): d/dx = grad * (1 - t**2) * w and d/dw = grad * (1 - t**2) * x.",
        ),
        solution=(
            "class TanhGate(torch.autograd.Function):\n"
            "    @staticmethod\n"
            "    def forward(ctx, x, w):\n"
            "        t = torch.tanh(x * w)\n"
            "        ctx.save_for_backward(x, w, t)\n"
            "        return t\n"
            "\n"
            "    @staticmethod\n"
            "    def backward(ctx, grad):\n"
            "        x, w, t = ctx.saved_tensors\n"
            "        d = grad * (1 - t**2)\n"
            "        return d * w, d * x"
        ),
    ),
    Activity(
        id="16.3",
        task="Predict which of five backward bodies for x³ pass gradgradcheck (survive a gradient penalty).",
        names=("twice_ok",),
        check=_check_twice,
        hints=(
            "create_graph=True records the backward's own operations, if they are recorded operations on x.",
            ".data and torch.no_grad() hide an operation from the record; clone and a constant do not.",
        ),
        solution='twice_ok = {"a", "d", "e"}',
    ),
)
