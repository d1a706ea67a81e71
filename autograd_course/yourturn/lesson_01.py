"""Your-turn activities of lesson 01 · Graph cuts."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.choice import offering, set_verdict, strings_of
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]

RECORDED = {"a", "c"}  # y * 1 and torch.stack keep the record; detach and tensor(item()) cut it
WHY_RECORDED = {
    "a": "y * 1 is an ordinary operation on a recorded tensor, so it is recorded",
    "b": "detach() returns the same values with no history and requires_grad=False",
    "c": "indexing and torch.stack are ordinary operations, so they are recorded",
    "d": ".item() gives a Python number, and a tensor built from numbers is a new leaf with no history",
}
WHY_GRAD = {
    "features": "requires_grad_() made it a new leaf, and backward fills a leaf's .grad",
    "encoder.weight": "the encoder ran under no_grad, so nothing recorded connects it to the loss",
    "encoder.bias": "the encoder ran under no_grad, so nothing recorded connects it to the loss",
    "classifier.weight": "the classifier ran with grad mode on, and the loss comes from its output",
    "classifier.bias": "the classifier ran with grad mode on, and the loss comes from its output",
}


@offering(lambda: RECORDED | set(WHY_RECORDED))
def _check_recorded(still_recorded: Any) -> tuple:
    given = strings_of(still_recorded)
    if given is None or not given <= WHY_RECORDED.keys():
        return incorrect(
            f"expected a set of letters among a, b, c, d such as {{'a'}}, got {still_recorded!r}"
        )
    return set_verdict(given, RECORDED, WHY_RECORDED, "require grad")


def _reached_by_backward(model: Any, inputs: Any, labels: Any) -> set[str]:
    """Names that hold a gradient after the colleague's attempt, run on a copy of the lesson model."""
    import copy

    import torch

    model = copy.deepcopy(model)
    model.zero_grad(set_to_none=True)
    with torch.no_grad():
        features = model["encoder"](inputs)
    features.requires_grad_()
    ((model["classifier"](features) - labels) ** 2).mean().backward()
    named = {"features": features, **dict(model.named_parameters())}
    return {name for name, t in named.items() if t.grad is not None}


def _option_names(model: Any, *_: Any) -> set[str]:
    return {"features", *(n for n, _ in model.named_parameters())}


@offering(_option_names)
def _check_gets_grad(gets_grad: Any, model: Any, inputs: Any, labels: Any) -> tuple:
    names = _option_names(model)
    given = strings_of(gets_grad)
    if given is None:
        return incorrect(f"expected a set of names such as {{'features'}}, got {gets_grad!r}")
    unknown = sorted(given - names)
    if unknown:
        return incorrect(f"{unknown} are not among the names {sorted(names)}")
    right = _reached_by_backward(model, inputs, labels)
    return set_verdict(given, right, {n: WHY_GRAD[n] for n in names if n in WHY_GRAD}, "hold a gradient")


def _l1_steps(step: Any, penalty: float) -> Any:
    """A small model after two calls of `step` (or of the reference step with this L1 weight)."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    for _ in range(2):
        if step is None:
            optimizer.zero_grad()
            l1 = sum(p.abs().sum() for p in model.parameters())
            (((model(x) - y) ** 2).mean() + penalty * l1).backward()
            optimizer.step()
        else:
            step(model, optimizer, x, y)
    return torch.cat([p.detach().flatten() for p in model.parameters()])


def _check_l1_step(fixed_l1_step: Any) -> tuple:
    import torch

    if not callable(fixed_l1_step):
        return incorrect(f"expected fixed_l1_step to be a function, got {type(fixed_l1_step).__name__}")
    got = _l1_steps(fixed_l1_step, 0.0)
    if torch.allclose(got, _l1_steps(None, 0.01), atol=1e-6):
        return correct(
            "the penalty is now computed from the parameters, so its gradient 0.01·sign(p) moves them."
        )
    if torch.allclose(got, _l1_steps(None, 0.0), atol=1e-6):
        return incorrect(
            "the parameters moved exactly as without the penalty: it adds to the loss's value but nothing"
            " connects it to the parameters"
        )
    return incorrect(
        "after two calls the parameters are not those of SGD on the MSE plus 0.01 × the L1 norm of every"
        " parameter, one zero_grad, backward and step per call"
    )


ACTIVITIES = (
    Activity(
        id="01.1",
        task="Predict which tensors get a gradient when features made under no_grad get requires_grad_().",
        names=("gets_grad",),
        check=_check_gets_grad,
        context=("model", "inputs", "labels"),
        hints=(
            "Under no_grad the encoder's output is recorded nowhere: what kind of tensor is features?",
            "requires_grad_() on a tensor with no history makes it a leaf; backward stops at leaves.",
        ),
        solution='gets_grad = {"features", "classifier.weight", "classifier.bias"}',
    ),
    Activity(
        id="01.2",
        task="Predict which of a, b, c, d still require grad, then set still_recorded.",
        names=("still_recorded",),
        check=_check_recorded,
        hints=(
            "An operation on a recorded tensor is recorded; a tensor built from numbers is a new leaf.",
            "detach() and .item() both leave the record; torch.stack is an ordinary operation.",
        ),
        solution='still_recorded = {"a", "c"}',
    ),
    Activity(
        id="01.3",
        task="Fix an L1-penalty step whose penalty trains nothing, as fixed_l1_step(model, optimizer, x, y).",
        names=("fixed_l1_step",),
        check=_check_l1_step,
        hints=(
            "Is the penalty in the record? Look at what it is built from.",
            "Sum the parameters' absolute values as tensors: no .item(), no torch.tensor(numbers).",
        ),
        solution=(
            "def fixed_l1_step(model, optimizer, x, y):\n"
            "    optimizer.zero_grad()\n"
            "    loss = ((model(x) - y) ** 2).mean()\n"
            "    l1 = sum(p.abs().sum() for p in model.parameters())\n"
            "    (loss + 0.01 * l1).backward()\n"
            "    optimizer.step()"
        ),
    ),
)
