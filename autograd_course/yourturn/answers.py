"""Small readers the activity checks share: a record's leaves, an enum member's name, a number."""

from __future__ import annotations

import numbers
from enum import Enum
from typing import Any

from helpers.graph import backward_nodes

__all__ = ["graph_leaves", "member_name", "number_of", "overwritten_saved_value", "whole_number_of"]


def graph_leaves(t: Any) -> list[Any]:
    """The leaf tensors a tensor's record reaches (one per AccumulateGrad node)."""
    return [fn.variable for fn in backward_nodes(t.grad_fn) if hasattr(fn, "variable")]


def member_name(answer: Any, enum: type[Enum]) -> str | None:
    """The member name an answer gives (the member itself or its name), None if it names no member."""
    name = answer.name if isinstance(answer, enum) else answer
    return name if isinstance(name, str) and name in enum.__members__ else None


def number_of(answer: Any) -> float | None:
    """The real number an answer gives (int, float, NumPy scalar, one-element tensor); None for the rest."""
    one_tensor = hasattr(answer, "numel") and answer.numel() == 1
    if hasattr(answer, "item") and (one_tensor or getattr(answer, "shape", None) == ()):  # NumPy scalars too
        answer = answer.item()
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        return None
    return float(answer)


def whole_number_of(answer: Any) -> int | None:
    """The whole number an answer gives (6, 6.0, np.int64(6)), else None."""
    value = number_of(answer)
    return int(value) if value is not None and value.is_integer() else None


def overwritten_saved_value(t: Any) -> str | None:
    """The first line of the error a node of t's record raises for a saved value changed in place, or None.

    Reads what each node saved without running backward, so a record the learner already ran backward
    through (its saved values freed) is judged as it was, and nothing of the learner's is changed.
    """
    for fn in backward_nodes(t.grad_fn):
        for name in dir(fn):
            if not name.startswith("_saved_"):
                continue
            try:
                getattr(fn, name)
            except RuntimeError as error:
                if "inplace operation" in str(error):
                    return str(error).strip().splitlines()[0]
    return None
