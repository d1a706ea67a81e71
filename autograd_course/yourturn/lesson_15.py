"""Your-turn activities of lesson 15 · Bugs from the field: registration."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import whole_number_of
from autograd_course.yourturn.choice import strings_of
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]

LEAVES = {"a", "c", "e"}


def _stack_parameter_count() -> int:
    """How many tensors Stack().parameters() lists, asked of torch itself."""
    import torch
    from torch import nn

    class Stack(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.blocks = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4)])
            self.extra = (nn.Linear(4, 4),)
            self.scale = torch.ones(1, requires_grad=True)
            self.head = nn.Linear(4, 1)

    return len(list(Stack().parameters()))


def _check_listed(listed: Any) -> tuple:
    given = listed
    listed = whole_number_of(given)
    if listed is None:
        return incorrect(f"expected a whole number of tensors, got {given!r}")
    actual = _stack_parameter_count()
    if listed == actual:
        return correct(
            f"{actual}: two Linear layers in the ModuleList and the head, a weight and a bias each; "
            "the tuple's layer and the plain tensor are not registered."
        )
    if listed in (actual + 1, actual + 2, actual + 3):
        return incorrect(
            f"{listed} counts something that is not registered: a tuple is not a ModuleList, "
            "and a plain tensor is not a Parameter"
        )
    if listed == 3:
        return incorrect(
            "3 counts modules; parameters() lists tensors: each Linear holds a weight and a bias"
        )
    return incorrect(f"{listed} is not it: count weight and bias of each registered Linear")


def _check_leaves(leaves: Any) -> tuple:
    given = strings_of(leaves)
    if given is None:
        return incorrect(f'expected a set of names such as {{"a", "b"}}, got {leaves!r}')
    names = {n.strip().lower() for n in given}
    if names == LEAVES:
        return correct(
            "a: .to('cpu') on a CPU tensor returns it; c and e ask for gradients after the last operation. "
            "b and d are copies made by an operation: not leaves."
        )
    if "d" in names:
        return incorrect(
            "d: nn.Parameter is a leaf, but .to(float64) on it is an operation: its result is a copy"
        )
    if "b" in names:
        return incorrect(
            "b: .double() is an operation on a tensor that requires grad, so its result is not a leaf"
        )
    missing = sorted(LEAVES - names)
    return incorrect(f"{', '.join(missing)} also: is any operation recorded after requires_grad was set?")


ACTIVITIES = (
    Activity(
        id="15.1",
        task=(
            "Predict how many tensors model.parameters() lists for Stack (ModuleList, tuple, plain "
            "tensor, head)."
        ),
        names=("listed",),
        check=_check_listed,
        hints=(
            "Only Modules, Parameters and the nn containers are registered; a tuple and a plain tensor "
            "are not.",
            "Each nn.Linear holds two tensors: weight and bias.",
        ),
        solution="listed = 6",
    ),
    Activity(
        id="15.2",
        task="Predict which of five tensors made with requires_grad and .to/.double are leaves.",
        names=("leaves",),
        check=_check_leaves,
        hints=(
            "A tensor is a leaf when no recorded operation made it: requires_grad set last, or no copy "
            "at all.",
            "t.to('cpu') on a CPU tensor returns t itself; a change of dtype makes a copy.",
        ),
        solution='leaves = {"a", "c", "e"}',
    ),
)
