"""The usage record: every check, hint and solution call leaves one in the notebook (otter-grader style).

A method decorated with `@recorded("hint")` returns the level it used (or None when it showed
nothing); the decorator appends {"exercise", "part", "kind", "level"} to the problem's `usage` and,
in Jupyter, displays it as an invisible output under USAGE_MIME, so `grade` reads it from the file.
"""

from __future__ import annotations

import functools
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from autograd_course.protocol import USAGE_MIME

__all__ = ["KINDS", "USAGE_MIME", "attempts_per_part", "in_jupyter", "recorded", "usage_records"]

KINDS = ("check", "hint", "solution")


def in_jupyter() -> bool:
    """True inside a Jupyter kernel (IPython with a kernel attached)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython else None
    return shell is not None and hasattr(shell, "kernel")


def _leave(record: dict) -> None:
    if in_jupyter():
        from IPython.display import display

        display({USAGE_MIME: record, "text/plain": ""}, raw=True)


def recorded(kind: str) -> Callable[[Callable[..., int | None]], Callable[..., None]]:
    """Decorate a problem's check/hint/solution: record the call when the method returns a level."""
    if kind not in KINDS:
        raise ValueError(f"expected a usage kind in {KINDS}, got {kind!r}")

    def decorate(method: Callable[..., int | None]) -> Callable[..., None]:
        @functools.wraps(method)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> None:
            level = method(self, *args, **kwargs)
            if level is None or not self.records(kind):
                return
            record = {"exercise": self.exercise_id, "part": self.part_number, "kind": kind, "level": level}
            self.usage.append(record)
            _leave(record)

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
