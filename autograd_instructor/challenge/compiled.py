"""Which compiled file names hold the broken code: an error counts as evidence only when raised there.

`build_broken` names the code it compiles and says so here; `evidence.origin` asks. The grader's
hidden runs compile under a fresh random name and accept only that one (`accept_only`), so an answer
that compiles its own code under a guessed name cannot forge an error of the broken code.
"""

from __future__ import annotations

__all__ = ["DEFAULT", "accept", "accept_only", "is_broken_code"]

DEFAULT = "<broken code>"
_ACCEPTED: set[str] = {DEFAULT}


def accept(filename: str) -> None:
    """Code compiled under filename is broken code (the notebook's own)."""
    _ACCEPTED.add(filename)


def accept_only(filename: str) -> None:
    """From now on only code compiled under filename is broken code (a hidden run's)."""
    _ACCEPTED.clear()
    _ACCEPTED.add(filename)


def is_broken_code(filename: str) -> bool:
    """Was this file name given to broken code by build_broken (and is it still accepted)?"""
    return filename in _ACCEPTED
