"""Your-turn activities of lesson 01 · Graph cuts."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.choice import strings_of
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]

RECORDED = {"a", "c"}  # y * 1 and torch.stack keep the record; detach and tensor(item()) cut it


def _check_recorded(still_recorded: Any) -> tuple:
    given = strings_of(still_recorded)
    if given is None:
        return incorrect(f"expected a set of letters such as {{'a'}}, got {still_recorded!r}")
    if given == RECORDED:
        return correct(
            "y * 1 and torch.stack stay in the record; detach() and rebuilding from .item() cut it."
        )
    wrong = sorted(given - RECORDED)
    missed = sorted(RECORDED - given)
    parts = [f"{n} does not require grad" for n in wrong] + [f"{n} is still recorded" for n in missed]
    return incorrect(f"you chose {sorted(given)}: " + "; ".join(parts))


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


def _check_gets_grad(gets_grad: Any, model: Any, inputs: Any, labels: Any) -> tuple:
    names = {"features", *(n for n, _ in model.named_parameters())}
    given = strings_of(gets_grad)
    if given is None:
        return incorrect(f"expected a set of names such as {{'features'}}, got {gets_grad!r}")
    unknown = sorted(given - names)
    if unknown:
        return incorrect(f"{unknown} are not among the names {sorted(names)}")
    right = _reached_by_backward(model, inputs, labels)
    if given == right:
        return correct(
            "requires_grad_() makes features a new leaf: backward stops there; the encoder is still cut off."
        )
    wrong = [f"{n} gets no gradient" for n in sorted(given - right)]
    missed = [f"{n} gets one" for n in sorted(right - given)]
    return incorrect(f"you chose {sorted(given)}: " + "; ".join(wrong + missed))


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
)
