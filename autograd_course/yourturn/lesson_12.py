"""Your-turn activities of lesson 12 · Checking a gradient."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import whole_number_of
from autograd_course.yourturn.choice import which_ones
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _ways_121() -> dict:
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


def _exact_ways() -> dict[str, bool]:
    """Whether each way runs under no_grad and lands within 2e-6 (relative) of the float64 value."""
    import torch

    gen = torch.Generator().manual_seed(3)
    x, u = torch.randn(8, generator=gen), torch.randn(8, generator=gen)

    def f(t):
        return (torch.exp(2 * t) * torch.sin(3 * t)).sum()

    exact = torch.func.jvp(f, (x.double(),), (u.double(),))[1].item()
    exact_ways = {}
    for letter, way in _ways_121().items():
        try:
            with torch.no_grad():
                value = way(torch, f, x, u)
        except RuntimeError:
            exact_ways[letter] = False
        else:
            exact_ways[letter] = abs(value - exact) <= 2e-6 * abs(exact)
    return exact_ways


WHY_121 = {
    "a": "it runs, but it divides a float32 difference of two close values by 2e-3: rounding and the step's"
    " truncation put it far beyond 2e-6",
    "b": "torch.func.jvp is forward mode: the tangent travels with the value, and no_grad stops"
    " only recording",
    "c": "backward needs a recorded graph, and under no_grad f(leaf) records nothing, so backward raises",
    "d": "dual numbers are forward mode too: the tangent rides the same pass, no record needed",
}
_check_exact_ways = which_ones(
    _exact_ways, "run under no_grad and land within 2e-6 of the float64 value", WHY_121
)


def _counted_passes() -> tuple[int, int]:
    """The decoder's Jacobian by dual numbers and by backward passes, counted: (forward, backward)."""
    import torch
    from torch import nn
    from torch.autograd import forward_ad

    decoder = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 5))
    counts = {"forward": 0, "backward": 0}

    def decode(z):
        counts["forward"] += 1
        return decoder(z)

    latent = torch.randn(2)
    with forward_ad.dual_level():
        columns = [
            forward_ad.unpack_dual(decode(forward_ad.make_dual(latent, e))).tangent for e in torch.eye(2)
        ]
    forward_passes = counts["forward"]
    leaf = latent.clone().requires_grad_()
    out = decode(leaf)
    out.register_hook(lambda grad: counts.update(backward=counts["backward"] + 1))
    rows = [torch.autograd.grad(out, leaf, v, retain_graph=True)[0] for v in torch.eye(5)]
    if not torch.allclose(torch.stack(columns, dim=1), torch.stack(rows), atol=1e-6):
        raise AssertionError("the two Jacobians of the decoder differ")
    return forward_passes, counts["backward"]


def _check_passes(forward_passes, backward_passes) -> tuple:
    given = whole_number_of(forward_passes), whole_number_of(backward_passes)
    if None in given:
        return incorrect(f"expected two whole numbers, got {forward_passes!r} and {backward_passes!r}")
    counted = _counted_passes()
    if given == counted:
        return correct(
            f"{counted[0]} forward-mode passes (one column J u per input direction), {counted[1]} backward"
            " passes (one row vᵀJ per output): few inputs and many outputs favour forward mode."
        )
    if given == counted[::-1]:
        return incorrect(
            "swapped: a forward-mode pass gives one column (an input direction), a backward one row"
        )
    if 1 in given:
        return incorrect(
            "one pass gives one column (forward) or one row (backward), not the whole 5 × 2 Jacobian"
        )
    return incorrect(f"you said {given[0]} and {given[1]}; count the Jacobian's columns and its rows")


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
        task="Predict which of four directional derivatives work under no_grad and land within 2e-6 of"
        " float64.",
        names=("exact_ways",),
        check=_check_exact_ways,
        hints=(
            "Two questions for each way: does it need a backward pass (refused when nothing is recorded)?"
            " Does it divide a float32 difference by a small step?",
            "Forward mode carries the tangent with the value in the same pass; no_grad stops only recording.",
        ),
        solution='exact_ways = {"b", "d"}',
    ),
    Activity(
        id="12.2",
        task="Predict the forward-mode and the backward passes the 5 x 2 Jacobian of a 2-to-5 decoder takes.",
        names=("forward_passes", "backward_passes"),
        check=_check_passes,
        hints=(
            "A forward-mode pass carries one tangent u and returns J u: one column of J.",
            "A backward pass takes one v and returns vᵀJ: one row of J. The Jacobian is 5 × 2.",
        ),
        solution="forward_passes = 2\nbackward_passes = 5",
    ),
    Activity(
        id="12.3",
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
