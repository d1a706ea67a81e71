"""The room as a terminal table, a self-refreshing HTML page and JSON."""

from __future__ import annotations

import html
import json

from autograd_instructor.classroom.room import LearnerState

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
    if s.graded:  # a graded notebook never says passed: what the room can tell is what is answered
        listed = f" ({', '.join(s.parts_answered)})" if s.parts_answered else ""
        parts = f"{len(s.parts_answered)}/{s.parts_total} answered{listed}"
    elif s.parts_self_reported:  # the notebook's own word: outputs a learner's kernel wrote
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


# One column per field on a laptop; on a phone each learner is a card of labelled lines.
STYLE = (
    "body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;padding:1rem;max-width:80rem;color:#1a1a1a;"
    "overflow-wrap:anywhere}"
    "table{border-collapse:collapse;width:100%}td,th{padding:4px 10px;text-align:left;vertical-align:top;"
    "border-bottom:1px solid #ddd;overflow-wrap:anywhere}"
    "@media(max-width:40rem){thead{display:none}table,tbody,tr,td{display:block;width:auto}"
    "tr{border-bottom:1px solid #bbb;padding:.4rem 0}td{border:0;padding:.1rem 0}"
    "td::before{content:attr(data-label) ': ';font-weight:600}}"
    "@media(prefers-color-scheme:dark){body{background:#161616;color:#e8e8e8}}"
)


def room_html(states: list[LearnerState], refresh: int = 30, stamp: str = "") -> str:
    """A page that reloads itself every `refresh` seconds (the command rewrites it)."""
    cells = "".join(
        "<tr>"
        + "".join(f'<td data-label="{html.escape(h)}">{html.escape(c)}</td>' for h, c in zip(HEAD, _row(s)))
        + "</tr>\n"
        for s in states
    )
    head = "".join(f"<th>{html.escape(h)}</th>" for h in HEAD)
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="refresh" content="{refresh}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Autograd Debugging: the room</title><style>{STYLE}</style></head><body>\n"
        f"<h1>The room</h1><p>{html.escape(stamp)}</p>\n<table><thead><tr>{head}</tr></thead>\n"
        f"<tbody>{cells}</tbody></table>\n<p>{html.escape(_not_started(states))}</p></body></html>\n"
    )


def room_json(states: list[LearnerState]) -> str:
    """Every learner's state as a JSON list."""
    return json.dumps([s.to_json() for s in states], indent=1)
