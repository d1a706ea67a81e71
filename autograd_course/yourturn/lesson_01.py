"""Your-turn activities of lesson 01 · Graph cuts."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import graph_leaves
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]

RECORDED = {"a", "c"}  # y * 1 and torch.stack keep the record; detach and tensor(item()) cut it


def _check_recorded(still_recorded: Any) -> tuple:
    if not isinstance(still_recorded, (set, list, tuple)) or not all(
        isinstance(n, str) for n in still_recorded
    ):
        return incorrect(f"expected a set of letters such as {{'a'}}, got {still_recorded!r}")
    given = set(still_recorded)
    if given == RECORDED:
        return correct(
            "y * 1 and torch.stack stay in the record; detach() and rebuilding from .item() cut it."
        )
    wrong = sorted(given - RECORDED)
    missed = sorted(RECORDED - given)
    parts = [f"{n} does not require grad" for n in wrong] + [f"{n} is still recorded" for n in missed]
    return incorrect(f"you chose {sorted(given)}: " + "; ".join(parts))


def _check_fixed_loss(fixed_loss: Any, model: Any) -> tuple:
    import torch

    if not isinstance(fixed_loss, torch.Tensor) or fixed_loss.dim() != 0:
        return incorrect(f"expected a scalar loss tensor, got {type(fixed_loss).__name__}")
    if fixed_loss.grad_fn is None:
        return incorrect("fixed_loss has no grad_fn: it is not recorded at all")
    reached = {id(leaf) for leaf in graph_leaves(fixed_loss)}
    names = {id(p): n for n, p in model.named_parameters()}
    others = len(reached - set(names))
    if others:
        return incorrect(
            f"the record reaches {others} tensor(s) that are not the lesson model's parameters: "
            "compute the loss with model['encoder'] and model['classifier'], not a new model"
        )
    missed = sorted(n for i, n in names.items() if i not in reached)
    if missed:
        return incorrect(f"the record does not reach {', '.join(missed)}: the cut is still there")
    return correct("the record reaches all four parameters: encoder and classifier both get gradients.")


ACTIVITIES = (
    Activity(
        id="01.1",
        task="Find the cut in a colleague's step so the encoder trains; write the loss as fixed_loss.",
        names=("fixed_loss",),
        check=_check_fixed_loss,
        context=("model",),
        hints=(
            "Look for a graph boundary between the encoder and the loss: what does the with block record?",
            "no_grad records nothing: call the encoder outside it, features = model['encoder'](inputs).",
        ),
        solution=(
            'features = model["encoder"](inputs)\n'
            'fixed_loss = ((model["classifier"](features) - labels) ** 2).mean()'
        ),
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
