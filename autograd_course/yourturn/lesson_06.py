"""Your-turn activities of lesson 06 · Frozen and forgotten parameters."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import whole_number_of
from autograd_course.yourturn.choice import one_reason
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _check_count(predicted_frozen_count: Any) -> tuple:
    count = whole_number_of(predicted_frozen_count)
    if count is None:
        return incorrect(f"expected a whole number, got {type(predicted_frozen_count).__name__}")
    if count == 0:
        return correct("module.requires_grad = False only stores a Python attribute; no parameter is frozen.")
    return incorrect(f"you gave {count}; nn.Module accepts any new attribute: what did it touch?")


_check_unfrozen_late = one_reason(
    "b",
    {
        "a": "requires_grad_(True) runs before backward, so backward does fill the encoder's .grad",
        "b": "backward fills .grad for every tensor that requires grad, but Adam was built from a list that"
        " left the encoder out, and unfreezing later does not add it: step() never reads that .grad",
        "c": "the optimizer holds the list it was given when it was built; the encoder is not in it",
        "d": "an optimizer can only move what it holds, and it never holds tensors with no gradient",
    },
)


ACTIVITIES = (
    Activity(
        id="06.1",
        task="Predict how many parameters `probe.encoder.requires_grad = False` freezes.",
        names=("predicted_frozen_count",),
        check=_check_count,
        hints=(
            "Note the missing underscore: this is an assignment, not the requires_grad_ method.",
            "nn.Module stores unknown attributes as plain Python attributes.",
        ),
        solution="predicted_frozen_count = 0",
    ),
    Activity(
        id="06.2",
        task="Predict what one step does to an encoder unfrozen after the optimizer was built.",
        names=("after_unfreezing",),
        check=_check_unfrozen_late,
        hints=(
            "Two separate questions: does backward compute the encoder's gradient, and does step() use it?",
            "The list comprehension runs once, when the optimizer is built.",
        ),
        solution='after_unfreezing = "b"',
    ),
)
