"""Your-turn activities of lesson 19 · Custom autograd Functions."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.choice import one_reason
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]

WHY_191 = {
    "a": "that message comes from the Error node @once_differentiable puts on its result only when the"
    " incoming gradient itself requires grad; here what comes into backward are the ones of sum(), constants",
    "b": "the gradient coming into NumpySin's backward is the ones of sum(), which do not require grad, and"
    " the NumPy backward is not recorded: slope is a constant with no grad_fn, and grad refuses to start"
    " from it",
    "c": "that message needs a graph that does not reach theta; here there is no graph to walk at all",
    "d": "NumPy's cos is never recorded, so nothing can differentiate it a second time",
    "e": "grad never returns zeros unless asked to (materialize_grads=True); it fails before computing"
    " anything",
}
MESSAGES_191 = {
    "a": "trying to differentiate twice",
    "b": "does not require grad and does not have a grad_fn",
    "c": "appears to not have been used in the graph",
}


def _observed_outcome() -> str:
    """The letter of what torch does for 19.1, found by running it: a NumPy sin marked once differentiable."""
    import numpy as np
    import torch
    from torch.autograd.function import once_differentiable

    class NumpySin(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return torch.from_numpy(np.sin(x.detach().numpy()))

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * torch.from_numpy(np.cos(x.detach().numpy()))

    theta = torch.tensor([0.3, 1.1, 2.0], dtype=torch.float64, requires_grad=True)
    (slope,) = torch.autograd.grad(NumpySin.apply(theta).sum(), theta, create_graph=True)
    try:
        (second,) = torch.autograd.grad(slope.sum(), theta)
    except RuntimeError as exc:
        return next(letter for letter, words in MESSAGES_191.items() if words in str(exc))
    return "d" if torch.allclose(second, -theta.detach().sin()) else "e"


def _check_second_outcome(second_outcome: Any) -> tuple:
    return one_reason(_observed_outcome(), WHY_191)(second_outcome)


_check_second_outcome.options = lambda *context: sorted(WHY_191)


def _forward_problem(BesselJ0: Any, torch: Any) -> str | None:
    """What is wrong with BesselJ0's forward on a 2-D float64 input: a sentence, or None."""
    x = torch.linspace(0.5, 15.0, 8, dtype=torch.float64).reshape(2, 4).requires_grad_(True)
    out = BesselJ0.apply(x)
    if not isinstance(out, torch.Tensor) or out.shape != x.shape:
        return f"BesselJ0.apply(x) must return one tensor shaped like x, got {type(out).__name__}"
    if not torch.allclose(out, torch.special.bessel_j0(x.detach())):
        return "the forward must compute torch.special.bessel_j0(x); yours gives other values"
    if not out.requires_grad:
        return "the output does not require grad: is it a torch.autograd.Function whose forward gets x?"
    return None


def _stale_gradient(BesselJ0: Any, torch: Any) -> bool:
    """Whether backward, after an in-place write into the input, silently used the new values."""
    start = torch.linspace(0.5, 15.0, 7, dtype=torch.float64)
    leaf = start.clone().requires_grad_(True)
    moved = leaf * 1.0  # not a leaf, so it may be written in place
    out = BesselJ0.apply(moved)
    with torch.no_grad():
        moved.add_(1.0)
    try:
        (grad,) = torch.autograd.grad(out.sum(), leaf)
    except RuntimeError:
        return False  # the version check caught the write: what save_for_backward gives
    return not torch.allclose(grad, -torch.special.bessel_j1(start))


def _check_bessel(BesselJ0: Any) -> tuple:
    import torch

    if not (isinstance(BesselJ0, type) and issubclass(BesselJ0, torch.autograd.Function)):
        return incorrect(f"expected a torch.autograd.Function subclass, got {BesselJ0!r}")
    problem = _forward_problem(BesselJ0, torch)
    if problem:
        return incorrect(problem)
    x = torch.linspace(0.5, 15.0, 7, dtype=torch.float64, requires_grad=True)
    if not torch.autograd.gradcheck(BesselJ0.apply, (x,), raise_exception=False):
        return incorrect(
            "gradcheck in float64 finds a Jacobian mismatch: your backward's gradient is not d/dx J0(x)"
            " times the gradient that comes in"
        )
    if _stale_gradient(BesselJ0, torch):
        return incorrect(
            "after an in-place write into the input, your backward silently used the new values: the input"
            " is kept where autograd does not check its version"
        )
    return correct(
        "gradcheck agrees, and an in-place write into the input cannot slip into the gradient: the"
        " derivative -J1(x) needs the input, saved with save_for_backward."
    )


ACTIVITIES = (
    Activity(
        id="19.1",
        task="Predict what a second grad does through a @once_differentiable Function on a summed loss.",
        names=("second_outcome",),
        check=_check_second_outcome,
        hints=(
            "@once_differentiable puts its Error node on the result only when the gradient coming into"
            " backward requires grad. What comes out of sum()'s backward?",
            "Without that node, and with a NumPy backward that is not recorded, does slope have any grad_fn?",
        ),
        solution='second_outcome = "b"',
    ),
    Activity(
        id="19.2",
        task="Write BesselJ0, a custom Function for torch.special.bessel_j0 with the derivative -J1(x).",
        names=("BesselJ0",),
        check=_check_bessel,
        hints=(
            "forward(ctx, x) computes torch.special.bessel_j0(x); backward(ctx, grad) returns one gradient,"
            " for x.",
            "The derivative needs x, not the output: ctx.save_for_backward(x) in forward, ctx.saved_tensors"
            " in backward, and multiply by the incoming grad.",
        ),
        solution=(
            "class BesselJ0(torch.autograd.Function):\n"
            "    @staticmethod\n"
            "    def forward(ctx, x):\n"
            "        ctx.save_for_backward(x)\n"
            "        return torch.special.bessel_j0(x)\n"
            "\n"
            "    @staticmethod\n"
            "    def backward(ctx, grad):\n"
            "        (x,) = ctx.saved_tensors\n"
            "        return -grad * torch.special.bessel_j1(x)"
        ),
    ),
)
