"""Points: what each exercise part and each part-2 check earns, read from the part declarations (PARTS)."""

from __future__ import annotations

from typing import Any

__all__ = ["POLICIES", "check_points", "exercise_max", "part2_checks_of", "part_max", "score"]

POLICIES = ("flag", "zero")  # --solution-viewed: keep the points and flag the part, or give it 0


def part2_checks_of(exercise_id: str) -> tuple[str, ...]:
    """The checks part 2 is judged on, in order (fixcheck.CHECKS, the same for every exercise)."""
    from autograd_course.challenge.fixcheck import CHECKS

    return CHECKS


def part_max(exercise_id: str, part: int) -> float:
    """The most one part can earn: its declared points (PARTS)."""
    from autograd_course.challenge.parts import PARTS

    return float(PARTS[part].points)


def check_points(exercise_id: str) -> float:
    """What one passed part-2 check earns: part 2's points split evenly over its checks."""
    return part_max(exercise_id, 2) / len(part2_checks_of(exercise_id))


def exercise_max(exercise_id: str) -> float:
    """The most one exercise can earn (both parts)."""
    return part_max(exercise_id, 1) + part_max(exercise_id, 2)


def score(record: Any, policy: str = "flag") -> float:
    """Points a record earns: all for a passed part, per passed check for part 2, else 0."""
    if policy not in POLICIES:
        raise ValueError(f"--solution-viewed must be one of {', '.join(POLICIES)}; got {policy!r}")
    if record.part not in (1, 2) or (policy == "zero" and record.solution_viewed):
        return 0.0
    if record.status == "passed":
        return part_max(record.exercise, record.part)
    if record.part == 2 and record.status == "failed":
        return check_points(record.exercise) * sum(1 for _, ok in record.checks if ok)
    return 0.0
