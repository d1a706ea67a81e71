"""Points: what each exercise part and each part-2 check earns, read from the part declarations (PARTS)."""

from __future__ import annotations

from typing import Any

from autograd_course.fixing.fixcheck import CHECKS
from autograd_instructor.challenge.parts import PARTS
from autograd_instructor.grading.options import POLICIES

__all__ = ["POLICIES", "check_points", "exercise_max", "part_max", "score"]


def part_max(part: int) -> float:
    """The most one part can earn: its declared points (PARTS); the same for every exercise."""
    return float(PARTS[part].points)


def check_points() -> float:
    """What one passed part-2 check earns: part 2's points split evenly over its checks (fixcheck.CHECKS)."""
    return part_max(2) / len(CHECKS)


def exercise_max() -> float:
    """The most one exercise can earn (both parts)."""
    return part_max(1) + part_max(2)


def score(record: Any, policy: str = "flag") -> float:
    """Points a record earns: all for a passed part, per passed check for part 2, else 0."""
    if policy not in POLICIES:
        raise ValueError(f"--solution-viewed must be one of {', '.join(POLICIES)}; got {policy!r}")
    if record.part not in (1, 2) or (policy == "zero" and record.solution_viewed):
        return 0.0
    if record.status == "passed":
        return part_max(record.part)
    if record.part == 2 and record.status == "failed":
        return check_points() * sum(1 for _, ok in record.checks if ok)
    return 0.0
