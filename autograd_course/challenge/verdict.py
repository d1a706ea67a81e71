"""Verdicts: correct, incorrect or not attempted; shown as a coloured block or plain text."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from enum import Enum

__all__ = [
    "COLOURS",
    "VERDICT_MIME",
    "CheckFailed",
    "Incorrect",
    "NotAttempted",
    "NotAttemptedError",
    "Outcome",
    "Verdict",
]

VERDICT_MIME = "application/vnd.autograd-course.verdict+json"  # the machine-readable copy of a verdict


class _NotAttemptedType:
    """The placeholder the generated exercises assign; the checks read it as "not attempted"."""

    _instance: _NotAttemptedType | None = None

    def __new__(cls) -> _NotAttemptedType:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NotAttempted"

    def __call__(self, *args: object, **kwargs: object) -> None:
        raise NotAttemptedError("this answer is still the placeholder NotAttempted")


NotAttempted = _NotAttemptedType()


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


@dataclass(frozen=True)
class Verdict:
    """One check's outcome for one part of one exercise, with a message for the learner."""

    exercise: str
    part: int
    outcome: Outcome
    message: str
    checks: tuple[tuple[str, bool], ...] = ()  # part 2: (check name, passed) in order, for partial credit

    @property
    def status(self) -> str:
        """passed, failed or not_attempted."""
        return STATUS[self.outcome]

    def text(self) -> str:
        """One line of plain text."""
        return f"{self.exercise} part {self.part}: {self.outcome.value}. {self.message}".rstrip()

    def to_json(self) -> dict:
        """Plain data: what the grader and progress files read."""
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
        return {
            "text/plain": self.text(),
            "text/html": self._repr_html_(),
            VERDICT_MIME: json.loads(json.dumps(self.to_json())),
        }

    def _repr_html_(self) -> str:
        colour = COLOURS[self.outcome]
        return (
            f'<div style="background:{colour};color:#000;padding:6px 10px;border-radius:4px">'
            f"<b>{html.escape(self.exercise)} part {self.part}: {self.outcome.value}</b> "
            f"{html.escape(self.message)}{self._checks_html()}</div>"
        )

    def _checks_html(self) -> str:
        if not self.checks:
            return ""
        marks = " ".join(
            f"{'&#10003;' if ok else '&#10007;'}&nbsp;{html.escape(name)}" for name, ok in self.checks
        )
        return f"<br><small>{marks}</small>"


class CheckFailed(Exception):
    """Raised by check() when a part is not correct; renders as one line in IPython."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.text())
        self.verdict = verdict

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self.verdict.text()}"]


class Incorrect(CheckFailed):
    """The answer was checked and is wrong."""


class NotAttemptedError(CheckFailed):
    """The answer is still the placeholder."""

    def __init__(self, verdict: Verdict | str) -> None:
        if isinstance(verdict, str):
            verdict = Verdict("?", 0, Outcome.NOT_ATTEMPTED, verdict)
        super().__init__(verdict)
