"""The instructor's overrides: a part's points set by hand, with a comment the learner reads.

An overrides file is a CSV with the header `learner,exercise,part,points,comment` (comment optional):
one row per part to correct. `grade --overrides FILE` applies it after every grading, so a regrade
(`--overwrite`) or a `--merge` keeps it: the grader's points are kept beside the instructor's in
`Record.override` and every output (results, feedback, audit, gradebooks, Gradescope) shows both.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from autograd_course.exercises import EXERCISES
from autograd_instructor.grading.scoring import part_max

__all__ = [
    "COLUMNS",
    "OVERRIDES_NAME",
    "Override",
    "OverrideError",
    "apply_overrides",
    "override_text",
    "overrides_data",
    "read_overrides",
]

COLUMNS = ("learner", "exercise", "part", "points", "comment")
OVERRIDES_NAME = "overrides.csv"  # its name in the Gradescope bundle (`gradescope --overrides`)


class OverrideError(ValueError):
    """An overrides file that cannot be applied; the message names the file, the line and the fix."""


@dataclass(frozen=True)
class Override:
    """One part's points set by the instructor, and the comment the learner reads."""

    learner: str
    exercise: str
    part: int
    points: float
    comment: str = ""
    line: int = 0  # where it is in the file, for errors

    def __repr__(self) -> str:
        return f"Override({self.learner} {self.exercise}.{self.part} = {self.points:g})"


def _exercise(text: str) -> str | None:
    found = [e for e in EXERCISES if e.lower() == text.strip().lower()]
    return found[0] if found else None


def _row(row: dict, where: str, n: int) -> Override:
    """One row checked: a known exercise, part 1 or 2, points within the part's maximum."""
    learner = (row.get("learner") or "").strip()
    if not learner:
        raise OverrideError(f"{where}, line {n}: empty learner")
    exercise = _exercise(row.get("exercise") or "")
    if exercise is None:
        raise OverrideError(
            f"{where}, line {n}: exercise {row.get('exercise')!r} is not one of {', '.join(EXERCISES)}"
        )
    part_text = (row.get("part") or "").strip()
    if part_text not in ("1", "2"):
        raise OverrideError(f"{where}, line {n}: part {part_text!r} must be 1 or 2")
    part = int(part_text)
    try:
        points = float((row.get("points") or "").strip())
    except ValueError:
        raise OverrideError(f"{where}, line {n}: points {row.get('points')!r} is not a number") from None
    if not 0 <= points <= part_max(part):
        raise OverrideError(
            f"{where}, line {n}: points {points:g} outside 0 to {part_max(part):g} for part {part}"
        )
    return Override(learner, exercise, part, points, (row.get("comment") or "").strip(), n)


def read_overrides(path: Path) -> list[Override]:
    """The rows of an overrides file, each checked; OverrideError for the first bad one."""
    where = f"--overrides {path}"
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise OverrideError(f"{where}: cannot read it ({exc.strerror})") from None
    reader = csv.DictReader(text.splitlines())
    header = [h.strip() for h in reader.fieldnames or []]
    if header[:4] != list(COLUMNS[:4]):
        raise OverrideError(
            f"{where}: expected the header {','.join(COLUMNS)} (comment optional), got {header}"
        )
    found, seen = [], {}
    for n, row in enumerate(reader, start=2):
        if not any((v or "").strip() for v in row.values() if isinstance(v, str)):
            continue  # a blank line
        o = _row({k.strip(): v for k, v in row.items() if k}, where, n)
        key = (o.learner, o.exercise, o.part)
        if key in seen:
            raise OverrideError(
                f"{where}, line {n}: {o.learner} {o.exercise} part {o.part} is already on line {seen[key]}"
            )
        seen[key] = n
        found.append(o)
    return found


def apply_overrides(
    records: list, overrides: list[Override], known: set[str] | None, new_record: Callable[..., Any]
) -> list:
    """Set each overridden part's points (the grader's kept in `override`); the records, plus one per
    override of a part nobody's notebook held. `new_record(learner, exercise, part)` makes that one.
    OverrideError for a learner not in `known` (a typo would otherwise change nobody); known=None (a
    shard) skips the rows of learners the records do not hold."""
    for r in records:
        r.override = {}
    added = []
    students = {r.student for r in records}
    for o in overrides:
        if known is not None and o.learner not in known:
            raise OverrideError(f"--overrides, line {o.line}: learner {o.learner!r} is not in these results")
        if known is None and o.learner not in students:
            continue
        mine = [
            r
            for r in records + added
            if r.student == o.learner and (r.exercise, r.part) == (o.exercise, o.part)
        ]
        if not mine:
            mine = [new_record(o.learner, o.exercise, o.part)]
            added += mine
        for r in mine:
            r.override = {"points": o.points, "comment": o.comment, "grader_points": r.points}
            r.points = o.points
    return records + added


def override_text(override: dict) -> str:
    """An override as one cell of results.csv: '3 (grader 1): comment', or ''."""
    if not override:
        return ""
    comment = f": {override['comment']}" if override.get("comment") else ""
    return f"{override['points']:g} (grader {override.get('grader_points', 0):g}){comment}"


def overrides_data(overrides: list[Override]) -> list[dict]:
    """Plain data for grading.json, so --merge applies the same overrides."""
    return [asdict(o) for o in overrides]
