"""Small readers the activity checks share: an enum member's name, a number."""

from __future__ import annotations

import numbers
from enum import Enum
from typing import Any

__all__ = ["member_name", "number_of", "whole_number_of"]


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
