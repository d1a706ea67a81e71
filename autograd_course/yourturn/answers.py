"""Small readers the activity checks share: a record's leaf tensors, an enum answer's member name."""

from __future__ import annotations

from enum import Enum
from typing import Any

from helpers.graph import backward_nodes

__all__ = ["graph_leaves", "member_name"]


def graph_leaves(t: Any) -> list[Any]:
    """The leaf tensors a tensor's record reaches (one per AccumulateGrad node)."""
    return [fn.variable for fn in backward_nodes(t.grad_fn) if hasattr(fn, "variable")]


def member_name(answer: Any, enum: type[Enum]) -> str | None:
    """The member name an answer gives (the member itself or its name), None if it names no member."""
    name = answer.name if isinstance(answer, enum) else answer
    return name if isinstance(name, str) and name in enum.__members__ else None
