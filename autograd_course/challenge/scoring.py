"""Points: the one place that says what each exercise part and each part-2 check is worth."""

from __future__ import annotations

from typing import Any

__all__ = [
    "BASE_CHECKS",
    "CHECK_POINTS",
    "PART1_POINTS",
    "POLICIES",
    "exercise_max",
    "part2_checks_of",
    "part_max",
    "score",
]

PART1_POINTS = 2.0  # part 1 (stage and evidence) is right or wrong
# Part 2 earns partial credit: each check the fixed training passes is worth this much.
CHECK_POINTS = {"loss_falls": 1.0, "params_move": 1.0, "no_carryover": 1.0}
EXTRA_CHECK_POINTS = 1.0  # a check an exercise declares beyond the three (e.g. "grads_grow")
BASE_CHECKS = tuple(CHECK_POINTS)
POLICIES = ("flag", "zero")  # --solution-viewed: keep the points and flag the part, or give it 0


def part2_checks_of(exercise_id: str) -> tuple[str, ...]:
    """The checks part 2 of an exercise is judged on: the three, plus any the exercise declares."""
    from autograd_course.challenge.catalogue import EXERCISES

    extra = getattr(EXERCISES.get(exercise_id), "checks", ()) or ()
    return BASE_CHECKS + tuple(c for c in extra if c not in BASE_CHECKS)


def _check_points(name: str) -> float:
    return CHECK_POINTS.get(name, EXTRA_CHECK_POINTS)


def part_max(exercise_id: str, part: int) -> float:
    """The most one part can earn."""
    if part == 1:
        return PART1_POINTS
    return sum(_check_points(c) for c in part2_checks_of(exercise_id))


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
        return sum(_check_points(name) for name, ok in record.checks if ok)
    return 0.0
