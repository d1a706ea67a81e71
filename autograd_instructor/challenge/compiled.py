"""Which code objects are broken code: an error counts as evidence only when it passed through them.

`build_broken` says here what the code it compiles defined (harness_core.defined_codes); `evidence.origin`
asks. Code an answer compiles itself, even under the broken code's file name, makes code objects of its
own, so it cannot forge an error of the broken code. A hidden run's code is the only broken code while it
runs (`accept_only`).
"""

from __future__ import annotations

from collections.abc import Iterable
from types import CodeType

__all__ = ["DEFAULT", "accept", "accept_only", "is_broken_code"]

DEFAULT = "<broken code>"  # the file name a practice notebook's broken code is compiled under
_ACCEPTED: set[CodeType] = set()


def accept(codes: Iterable[CodeType]) -> None:
    """These code objects are broken code (a notebook's own, beside the others built before)."""
    _ACCEPTED.update(codes)


def accept_only(codes: Iterable[CodeType]) -> None:
    """From now on only these code objects are broken code (a hidden run's)."""
    _ACCEPTED.clear()
    _ACCEPTED.update(codes)


def is_broken_code(code: CodeType) -> bool:
    """Is this code object one build_broken made (and is it still accepted)?"""
    return code in _ACCEPTED
