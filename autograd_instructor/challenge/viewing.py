"""Reference answers read through the package are recorded as viewed, as `part.solution()` is.

Every notebook's parts watch here; reading a part's reference (PARTS[n].solution(variant),
fixed_code(variant), a bug's proof) tells the watching parts of that variant, which record a
"solution" use in the notebook: the grader then sees it, whichever way the answer was read.
"""

from __future__ import annotations

import weakref
from typing import Any

__all__ = ["viewed", "watch"]

_WATCHERS: weakref.WeakSet = weakref.WeakSet()


def watch(part: Any) -> None:
    """Register a notebook's part (it has part_number, owner.variant and record_view())."""
    _WATCHERS.add(part)


def viewed(part: int, *, variant: Any = None, bug: str | None = None) -> None:
    """A reference answer of `part` was read, for one variant (or for every variant of one bug)."""
    for watcher in list(_WATCHERS):
        mine = watcher.owner.variant
        if watcher.part_number == part and (mine == variant or (bug is not None and mine.bug == bug)):
            watcher.record_view()
