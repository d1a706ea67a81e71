"""Your-turn activities of lesson 20 · Forward mode and higher-order gradients."""

from __future__ import annotations

import gc
import warnings
import weakref
from typing import Any

from autograd_course.yourturn.answers import whole_number_of
from autograd_course.yourturn.choice import which_ones
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _ways_201() -> dict:
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
    for letter, way in _ways_201().items():
        try:
            with torch.no_grad():
                value = way(torch, f, x, u)
        except RuntimeError:
            exact_ways[letter] = False
        else:
            exact_ways[letter] = abs(value - exact) <= 2e-6 * abs(exact)
    return exact_ways


WHY_201 = {
    "a": "it runs, but it divides a float32 difference of two close values by 2e-3: rounding and the step's"
    " truncation put it far beyond 2e-6",
    "b": "torch.func.jvp is forward mode: the tangent travels with the value, and no_grad stops"
    " only recording",
    "c": "backward needs a recorded graph, and under no_grad f(leaf) records nothing, so backward raises",
    "d": "dual numbers are forward mode too: the tangent rides the same pass, no record needed",
}
_check_exact_ways = which_ones(
    _exact_ways, "run under no_grad and land within 2e-6 of the float64 value", WHY_201
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


def _reference_step(critic, optimizer, points) -> None:
    """The intended step: the input gradient taken as a value, recorded, then one plain backward."""
    import torch

    optimizer.zero_grad()
    points = points.clone().requires_grad_()
    out = critic(points)
    (input_grad,) = torch.autograd.grad(out.sum(), points, create_graph=True)
    penalty = ((input_grad.norm(dim=1) - 1) ** 2).mean()
    ((out**2).mean() + 10 * penalty).backward()
    optimizer.step()


def _trained(step) -> tuple[list, bool, int]:
    """A fresh critic trained two steps by `step`: its weights, whether a .grad holds a graph, how many
    of its parameters outlive it once dropped and collected."""
    import torch
    from torch import nn

    with torch.random.fork_rng():  # the same critic every time, and the learner's RNG left as it was
        torch.manual_seed(7)
        critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
        points = torch.randn(32, 2)
    optimizer = torch.optim.SGD(critic.parameters(), lr=0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # backward(create_graph=True) warns; the verdict says what matters
        for _ in range(2):
            step(critic, optimizer, points.clone())
    weights = [p.detach().clone() for p in critic.parameters()]
    holding = any(p.grad is not None and p.grad.requires_grad for p in critic.parameters())
    refs = [weakref.ref(p) for p in critic.parameters()]
    del critic, optimizer
    gc.collect()
    return weights, holding, sum(ref() is not None for ref in refs)


def _check_critic_step(critic_step: Any) -> tuple:
    import torch

    if not callable(critic_step):
        return incorrect(f"expected a function critic_step(critic, optimizer, points), got {critic_step!r}")
    expected = _trained(_reference_step)[0]
    try:
        weights, holding, alive = _trained(critic_step)
    except Exception as exc:  # the learner's step raised: say so, in their terms
        return incorrect(f"your step raised {type(exc).__name__}: {str(exc).strip().splitlines()[0]}")
    if not all(torch.allclose(w, e, atol=1e-6) for w, e in zip(weights, expected)):
        return incorrect(
            "after two steps the critic's weights are not those of the intended training: the penalty's"
            " gradient does not reach the critic as it should (is the input gradient still recorded?)"
        )
    if holding:
        return incorrect(
            "after your step a parameter's .grad still requires grad: it holds the recorded graph, which"
            " leads back to the parameter"
        )
    if alive:
        return incorrect(
            f"{alive} of the critic's parameters outlive it after gc.collect(): a recorded gradient is still"
            " stored in a .grad that the step leaves behind (not only parameters have a .grad)"
        )
    return correct(
        "same training, and the critic is freed once dropped: no .grad is left holding a recorded graph."
    )


ACTIVITIES = (
    Activity(
        id="20.1",
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
        id="20.2",
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
        id="20.3",
        task="Rewrite a critic's gradient-penalty step so that it trains the same and leaves no reference"
        " cycle behind.",
        names=("critic_step",),
        check=_check_critic_step,
        hints=(
            "Which tensors get a .grad that requires grad in leaky_critic_step? Not only the critic's"
            " parameters are leaves there.",
            "A gradient you need only as a value does not have to be stored in any .grad at all.",
            "torch.autograd.grad(outputs, inputs, create_graph=True) returns recorded gradients and leaves"
            " every .grad alone.",
        ),
        solution=(
            "def critic_step(critic, optimizer, points):\n"
            "    optimizer.zero_grad()\n"
            "    points = points.clone().requires_grad_()\n"
            "    out = critic(points)\n"
            "    (input_grad,) = torch.autograd.grad(out.sum(), points, create_graph=True)\n"
            "    penalty = ((input_grad.norm(dim=1) - 1) ** 2).mean()\n"
            "    ((out**2).mean() + 10 * penalty).backward()\n"
            "    optimizer.step()"
        ),
    ),
)
