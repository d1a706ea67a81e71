"""Your-turn activities of lesson 12 · Checking a gradient."""

from __future__ import annotations

import warnings
from typing import Any

from autograd_course.yourturn.choice import which_ones
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _passing_checks() -> dict[str, bool]:
    """Whether each check of a correct function returns True, without raising, on the same random input."""
    import torch
    from torch import nn

    from helpers import check_gradient

    class SiLU(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * torch.sigmoid(x)

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            s = torch.sigmoid(x)
            return grad_out * (s + x * s * (1 - s))

    gradcheck = torch.autograd.gradcheck
    with torch.random.fork_rng():
        torch.manual_seed(5)
        x32 = torch.randn(4, requires_grad=True)
        layers = nn.Linear(4, 3), nn.Linear(4, 3).double()
    x64 = x32.detach().double().requires_grad_()
    checks = {
        "a": lambda: gradcheck(SiLU.apply, (x32,), raise_exception=False),
        "b": lambda: gradcheck(lambda t: SiLU.apply(t.float()).double(), (x64,), raise_exception=False),
        "c": lambda: gradcheck(layers[0], (x64,), raise_exception=False),
        "d": lambda: gradcheck(layers[1], (x64,), raise_exception=False),
        "e": lambda: check_gradient(lambda t: SiLU.apply(t).sum(), x32).ok,
    }
    passing = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gradcheck warns about float32 inputs; the verdict explains it
        for letter, run in checks.items():
            try:
                passing[letter] = bool(run())
            except RuntimeError:
                passing[letter] = False
    return passing


WHY_121 = {
    "a": "in float32 the finite difference at gradcheck's step of 1e-6 is rounding noise: a false Jacobian"
    " mismatch",
    "b": "the input is float64, but the function computes in float32 inside it: the step of 1e-6 is rounded"
    " away there, and the mismatch is as false as in float32",
    "c": "the layer's weight is still float32: it meets the float64 input in a matrix multiply that refuses"
    " mixed dtypes, so the check raises before it compares anything",
    "d": "input and parameters are both float64: the numerical Jacobian is accurate, and nn.Linear's"
    " backward is right",
    "e": "check_gradient converts the input to float64 itself, and nothing inside SiLU is float32",
}
_check_passing = which_ones(_passing_checks, "report the correct function as correct", WHY_121)


def _check_softsign(FixedSoftsign: Any) -> tuple:
    import torch

    if not hasattr(FixedSoftsign, "apply"):
        return incorrect(f"expected a torch.autograd.Function subclass, got {FixedSoftsign!r}")
    x = torch.tensor([-3.0, -0.7, 0.2, 1.5, 4.0], dtype=torch.float64, requires_grad=True)
    out = FixedSoftsign.apply(x)
    if not torch.allclose(out, x / (1 + x.abs())):
        return incorrect("the forward changed: keep x / (1 + |x|) and fix only the backward")
    if not torch.autograd.gradcheck(FixedSoftsign.apply, (x,), raise_exception=False):
        return incorrect("gradcheck in float64 still finds a Jacobian mismatch: derive d/dx of x / (1 + |x|)")
    return correct("gradcheck agrees: d/dx x / (1 + |x|) = 1 / (1 + |x|)², the quotient rule's both terms.")


ACTIVITIES = (
    Activity(
        id="12.1",
        task="Predict which of five gradient checks of correct functions return True without raising.",
        names=("passing_checks",),
        check=_check_passing,
        hints=(
            "A check in float64 is only as precise as the least precise dtype the function computes in.",
            "Look inside each function for anything float32: a cast, or a layer's parameters.",
        ),
        solution='passing_checks = {"d", "e"}',
    ),
    Activity(
        id="12.2",
        task="Find the bug in Softsign's backward with a gradient check, and write FixedSoftsign.",
        names=("FixedSoftsign",),
        check=_check_softsign,
        hints=(
            "torch.autograd.gradcheck(Softsign.apply, (x64,)) with float64 inputs shows the mismatch.",
            "The quotient rule: d/dx [x / (1 + |x|)] = ((1 + |x|) - x · sign(x)) / (1 + |x|)²,"
            " which is 1 / (1 + |x|)².",
        ),
        solution=(
            "class FixedSoftsign(torch.autograd.Function):\n"
            "    @staticmethod\n"
            "    def forward(ctx, x):\n"
            "        ctx.save_for_backward(x)\n"
            "        return x / (1 + x.abs())\n"
            "\n"
            "    @staticmethod\n"
            "    def backward(ctx, grad_out):\n"
            "        (x,) = ctx.saved_tensors\n"
            "        return grad_out / (1 + x.abs()) ** 2"
        ),
    ),
)
