"""What a check concluded, shown one way for every problem: a lesson activity or a challenge part."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from enum import Enum
from typing import Any

from autograd_course.checks.display import message_html
from autograd_course.protocol import ACTIVITY_MIME, VERDICT_MIME

__all__ = ["ACTIVITY_MIME", "COLOURS", "STATUS", "VERDICT_MIME", "Note", "Outcome", "Verdict", "label_of"]


class Outcome(Enum):
    """What a check concluded."""

    CORRECT = "correct"
    INCORRECT = "incorrect"
    NOT_ATTEMPTED = "not attempted"

    def __repr__(self) -> str:
        return f"Outcome.{self.name}"


COLOURS = {Outcome.CORRECT: "#c8e6c9", Outcome.INCORRECT: "#ffcdd2", Outcome.NOT_ATTEMPTED: "#e1f5fe"}
# Grader statuses (results.json) for each outcome.
STATUS = {Outcome.CORRECT: "passed", Outcome.INCORRECT: "failed", Outcome.NOT_ATTEMPTED: "not_attempted"}
_NOTE_COLOUR = "#fff8e1"


def _box(colour: str, title: str, body: str) -> str:
    return (
        f'<div style="background:{colour};color:#000;padding:6px 10px;border-radius:4px">'
        f"<b>{html.escape(title)}</b> {body}</div>"
    )


def label_of(exercise: str, part: int | None) -> str:
    """What a problem is called: "Your turn 00.1" for an activity, "A part 1" for a challenge part."""
    return f"Your turn {exercise}" if part is None else f"{exercise} part {part}"


@dataclass(frozen=True)
class Verdict:
    """One check's outcome for one problem, with a message for the learner.

    `exercise` is a challenge exercise id ("A") or a lesson activity id ("00.1"); `part` is the
    challenge part (1, 2), None for an activity. `checks` lists (name, passed) for partial credit.
    """

    exercise: str
    part: int | None
    outcome: Outcome
    message: str
    checks: tuple[tuple[str, bool], ...] = ()

    @property
    def label(self) -> str:
        """What the verdict is about, as the learner reads it."""
        return label_of(self.exercise, self.part)

    @property
    def status(self) -> str:
        """passed, failed or not_attempted."""
        return STATUS[self.outcome]

    def text(self) -> str:
        """One line of plain text."""
        return f"{self.label}: {self.outcome.value}. {self.message}".rstrip()

    def to_json(self) -> dict:
        """Plain data: what the grader, progress files and tests read."""
        if self.part is None:
            return {"id": self.exercise, "outcome": self.outcome.value}
        return {
            "exercise": self.exercise,
            "part": self.part,
            "status": self.status,
            "message": self.message,
            "checks": [[name, passed] for name, passed in self.checks],
        }

    def __repr__(self) -> str:
        return self.text()

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict:
        mime = ACTIVITY_MIME if self.part is None else VERDICT_MIME
        return {
            "text/plain": self.text(),
            "text/html": self._repr_html_(),
            mime: json.loads(json.dumps(self.to_json())),
        }

    def _repr_html_(self) -> str:
        body = message_html(self.message) + self._checks_html()
        return _box(COLOURS[self.outcome], f"{self.label}: {self.outcome.value}.", body)

    def _checks_html(self) -> str:
        if not self.checks:
            return ""
        marks = " ".join(
            f"{'&#10003;' if ok else '&#10007;'}&nbsp;{html.escape(name)}" for name, ok in self.checks
        )
        return f"<br><small>{marks}</small>"


class Note:
    """A hint or a solution: a title and a body (code is shown preformatted)."""

    def __init__(self, title: str, body: str, code: bool = False) -> None:
        self.title, self.body, self.code = title, body, code

    def text(self) -> str:
        """Plain text: the title, then the body (on its own lines for code)."""
        return f"{self.title}\n{self.body}" if self.code else f"{self.title} {self.body}"

    def __repr__(self) -> str:
        return self.text()

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict:
        return {"text/plain": self.text(), "text/html": self._repr_html_()}

    def _repr_html_(self) -> str:
        if self.code:
            return _box(_NOTE_COLOUR, self.title, f"<pre>{html.escape(self.body)}</pre>")
        return _box(_NOTE_COLOUR, self.title, message_html(self.body))


def verdict_data(output: Any) -> dict | None:
    """The machine-readable verdict a stored output carries (either MIME type), or None."""
    data = output.get("data", {}) if isinstance(output, dict) else {}
    for mime in (VERDICT_MIME, ACTIVITY_MIME):
        value = data.get(mime)
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                continue
        if isinstance(value, dict):
            return value
    return None


__all__ += ["verdict_data"]
