"""The room as a terminal table, a self-refreshing HTML page and JSON."""

from __future__ import annotations

import html
import json

from autograd_course.classroom.room import LearnerState

__all__ = ["room_html", "room_json", "room_table"]

HEAD = ("learner", "id", "lessons run", "activities", "challenge parts", "last activity")


def _row(s: LearnerState) -> tuple[str, ...]:
    """One learner's cells, the same in every view."""
    if not s.started:
        return (s.user, s.learner, s.problem or "not started", "-", "-", "-")
    lessons = ", ".join(s.lessons_run) if s.lessons_run else "none"
    activities = f"{s.activities_correct}/{s.activities_total} correct"
    parts = f"{len(s.parts_passed)}/{s.parts_total} passed by check" + (
        f" ({', '.join(s.parts_passed)})" if s.parts_passed else ""
    )
    if s.parts_self_reported:  # the notebook's own word: outputs a learner's kernel wrote
        parts += f"; self-reported: {', '.join(s.parts_self_reported)}"
    return (s.user, s.learner, lessons, activities, parts, s.last_text)


def _not_started(states: list[LearnerState]) -> str:
    """The closing line: who has not started."""
    names = [s.user for s in states if not s.started]
    return "Not started: " + (", ".join(names) if names else "nobody")


def room_table(states: list[LearnerState]) -> str:
    """A plain-text table, one learner a line, then who has not started."""
    rows = [HEAD, *(_row(s) for s in states)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEAD) - 1)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"
    lines = [fmt.format(*HEAD), fmt.format(*("-" * w for w in widths), "-" * len(HEAD[-1]))]
    lines += [fmt.format(*r) for r in rows[1:]]
    return "\n".join([*lines, "", _not_started(states)])


def room_html(states: list[LearnerState], refresh: int = 30, stamp: str = "") -> str:
    """A page that reloads itself every `refresh` seconds (the command rewrites it)."""
    cells = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in _row(s)) + "</tr>\n" for s in states
    )
    head = "".join(f"<th>{html.escape(h)}</th>" for h in HEAD)
    return (
        f'<!doctype html>\n<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="{refresh}">'
        "<title>Autograd Debugging: the room</title><style>body{font-family:sans-serif}"
        "td,th{padding:4px 10px;text-align:left;border-bottom:1px solid #ddd}</style></head><body>\n"
        f"<h1>The room</h1><p>{html.escape(stamp)}</p>\n<table><tr>{head}</tr>\n{cells}</table>\n"
        f"<p>{html.escape(_not_started(states))}</p></body></html>\n"
    )


def room_json(states: list[LearnerState]) -> str:
    """Every learner's state as a JSON list."""
    return json.dumps([s.to_json() for s in states], indent=1)
