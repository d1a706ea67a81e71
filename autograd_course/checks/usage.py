"""The usage record: every check, hint and solution call leaves one in the notebook (otter-grader style).

A method decorated with `@recorded("hint")` returns the level it used (None when nothing was
used) and what to show; the decorator appends {"exercise", "part", "kind", "level"} to the
problem's `usage` and, in Jupyter, stores it under USAGE_MIME in the same output, so `grade` reads
it from the file.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from autograd_course.checks.display import show
from autograd_course.protocol import USAGE_MIME

__all__ = ["KINDS", "USAGE_MIME", "attempts_per_part", "recorded", "usage_records"]

KINDS = ("check", "hint", "solution")


def recorded(kind: str) -> Callable[[Callable[..., tuple[int | None, Any]]], Callable[..., None]]:
    """Decorate a problem's check/hint/solution: show what it returns, with its usage record.

    The method returns (level, view): the view is shown; a level (None: nothing was used) makes
    a record {"exercise", "part", "kind", "level"}, kept in the problem's `usage` and in the output.
    """
    if kind not in KINDS:
        raise ValueError(f"expected a usage kind in {KINDS}, got {kind!r}")

    def decorate(method: Callable[..., tuple[int | None, Any]]) -> Callable[..., None]:
        @functools.wraps(method)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> None:
            level, view = method(self, *args, **kwargs)
            record = None
            if level is not None and self.records(kind):
                record = {
                    "exercise": self.exercise_id,
                    "part": self.part_number,
                    "kind": kind,
                    "level": level,
                }
                self.usage.append(record)
            show(view, record)

        return wrapper

    return decorate


def _outputs(nb: Any) -> Iterable[dict]:
    for cell in nb.get("cells", []) if isinstance(nb, dict) else nb.cells:
        yield from cell.get("outputs", [])


def usage_records(nb: Any) -> list[dict]:
    """Every usage record a notebook's stored outputs hold, in order (unreadable ones skipped)."""
    found = []
    for out in _outputs(nb):
        data = out.get("data", {}).get(USAGE_MIME)
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError:
                continue
        if isinstance(data, dict) and data.get("kind") in KINDS and isinstance(data.get("exercise"), str):
            found.append(data)
    return found


def attempts_per_part(nb: Any) -> dict[tuple[str, int], int]:
    """{(exercise, part): number of check() calls} recorded in a notebook's outputs (challenge parts)."""
    counts: Counter = Counter()
    for record in usage_records(nb):
        part = record.get("part")
        if record["kind"] == "check" and isinstance(part, int) and not isinstance(part, bool):
            counts[(record["exercise"], part)] += 1
    return dict(counts)
