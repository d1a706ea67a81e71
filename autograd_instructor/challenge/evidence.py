"""Part 1's evidence in the grader's process: summaries of the notebook's own objects, and the kinds.

The kinds (how a summary is matched against a trusted run and described) live in proving/kinds.py,
which a graded notebook's check uses too; here is what needs the practice notebook's compiled code
(compiled.is_broken_code): where an exception came from, and a summary of an evidence object.
"""

from __future__ import annotations

from typing import Any

from autograd_course.proving import proofrun
from autograd_course.proving.kinds import KINDS, NOT_RECORDED, RAISED_BY_CODE, Kind, describe, frozen_in
from autograd_course.proving.proofrun import stage_name
from autograd_instructor.challenge.compiled import is_broken_code

__all__ = [
    "KINDS",
    "NOT_RECORDED",
    "RAISED_BY_CODE",
    "Kind",
    "describe",
    "frozen_in",
    "origin",
    "stage_name",
    "summarize",
]


def origin(exc: BaseException) -> str:
    """Where an exception was raised: "broken code", "helpers", "elsewhere" or "never raised"."""
    return proofrun.origin(exc, is_broken_code)


def summarize(evidence: Any) -> dict:
    """Plain data (JSON-able) describing one evidence object from the helpers (the notebook's own
    broken code is the code whose errors count: compiled.is_broken_code)."""
    return proofrun.summarize(evidence, is_broken_code)
