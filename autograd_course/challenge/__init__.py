"""The TinyNet bug challenge: bug catalogue, in-notebook checks, exercise generator and grader."""

from autograd_course.challenge.catalogue import BUGS, EXERCISES, Bug, Exercise
from autograd_course.challenge.exercise import Challenge, Part, challenge
from autograd_course.challenge.verdict import (
    CheckFailed,
    Incorrect,
    NotAttempted,
    NotAttemptedError,
    Outcome,
    Verdict,
)

__all__ = [
    "BUGS",
    "EXERCISES",
    "Bug",
    "Challenge",
    "CheckFailed",
    "Exercise",
    "Incorrect",
    "NotAttempted",
    "NotAttemptedError",
    "Outcome",
    "Part",
    "Verdict",
    "challenge",
]
