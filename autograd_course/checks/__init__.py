"""The one check view for lesson activities and challenge parts: verdicts, hints, solutions, usage."""

from autograd_course.checks.display import show
from autograd_course.checks.usage import USAGE_MIME, attempts_per_part, recorded, usage_records
from autograd_course.checks.verdict import (
    ACTIVITY_MIME,
    VERDICT_MIME,
    Note,
    Outcome,
    Verdict,
    label_of,
    verdict_data,
)
from autograd_course.checks.view import ProblemView

__all__ = [
    "ACTIVITY_MIME",
    "USAGE_MIME",
    "VERDICT_MIME",
    "Note",
    "Outcome",
    "ProblemView",
    "Verdict",
    "attempts_per_part",
    "label_of",
    "recorded",
    "show",
    "usage_records",
    "verdict_data",
]
