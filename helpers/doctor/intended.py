"""Findings that may be intended (weights shared on purpose, BatchNorm frozen on purpose, a frozen
teacher): the names diagnose(intended=[...]) accepts, and the sentence that says how to mark one."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["how_to_mark", "is_intended"]


def is_intended(name: str, intended: Iterable[str]) -> bool:
    """Whether a name is one of, or inside one of, the names marked intended."""
    return any(name == i or name.startswith(i + ".") for i in intended)


def how_to_mark(names: Iterable[str]) -> str:
    """How to say that this finding is intended: every name, so the call can be copied as it is."""
    shown = ", ".join(repr(n) for n in names)
    return f"if this is intended, say so: diagnose(..., intended=[{shown}]) and this check stays quiet"
