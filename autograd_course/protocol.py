"""Names that notebooks, the learner's tools and the instructor's tools share: write each one here only.

Torch-free and import-free on purpose: every other module may import this one, and it imports none of them.
"""

from __future__ import annotations

from pathlib import PurePosixPath

__all__ = [
    "ACTIVITY_MIME",
    "EXITS",
    "EXIT_BAD_INPUT",
    "EXIT_FAILED",
    "EXIT_INCOMPLETE",
    "EXIT_OK",
    "EXIT_UNUSABLE",
    "LEARNER_ENV",
    "LEARNER_FILE",
    "META_KEY",
    "PROGRESS_FILE",
    "USAGE_MIME",
    "VERDICT_MIME",
    "CommandError",
]

# The learner id that draws a learner's exercise variants: this variable first, then course.json.
LEARNER_ENV = "AUTOGRAD_COURSE_LEARNER"
LEARNER_FILE = "course.json"

# Notebook and cell metadata key: {"exercise", "part", "role"}, {"yourturn", "role"}, {"learner"}.
META_KEY = "autograd_course"

# A check, hint or solution call leaves this output in the notebook, so `grade` can read what was used.
USAGE_MIME = "application/vnd.autograd-course.usage+json"

# The machine-readable copy of a verdict, stored with its output: challenge parts, and lesson activities.
VERDICT_MIME = "application/vnd.autograd-course.verdict+json"
ACTIVITY_MIME = "application/vnd.autograd-course.yourturn+json"

# Written by `check` inside a workspace, read by `progress`.
PROGRESS_FILE = PurePosixPath(".autograd-course") / "progress.json"

# How a command fails: it raises CommandError (bad input, or an installation that cannot do the job) and
# `cli.main`, the one place that prints it, writes `error: <message>` and the notes on stderr and exits with
# its code. Nothing is written before the error.
EXIT_OK = 0
EXIT_FAILED = 1  # it ran, and what it judged did not pass (`check`, `run`, `grade --strict`, `--check`)
EXIT_BAD_INPUT = 2  # nothing done: an argument, file or folder is not what the command expects
EXIT_UNUSABLE = 2  # nothing done: this installation cannot do it (the message says what to install)
EXIT_INCOMPLETE = 3  # `grade`: some submissions could not be graded (error or timeout)

EXITS = {  # the meaning of each status, as README's table states it
    EXIT_OK: "done",
    EXIT_FAILED: "done, and something the command judged did not pass "
    "(`check`, `run`, `grade --strict`, `--check`)",
    EXIT_BAD_INPUT: "nothing done: bad input, or an installation that cannot do it (the message says which)",
    EXIT_INCOMPLETE: "`grade` only: some submissions could not be graded (`error` or `timeout`)",
}


class CommandError(Exception):
    """Bad input or an unusable installation: the message says what was expected; notes follow it."""

    def __init__(self, message: str, *notes: str, code: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.notes, self.code = notes, code

    def __repr__(self) -> str:
        return f"CommandError({str(self)!r}, code={self.code})"

    def lines(self) -> list[str]:
        """What stderr shows: the error, then each note on its own line."""
        return [f"error: {self}", *self.notes]
