"""Gradebook files: grades.csv (one row per student), and Canvas' and Moodle's import layouts."""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograd_course.exercises import EXERCISES
from autograd_instructor.grading.options import ASSIGNMENT
from autograd_instructor.grading.scoring import exercise_max

__all__ = [
    "ASSIGNMENT",
    "UNTOUCHED",
    "StudentGrade",
    "mark_untouched",
    "student_grades",
    "untouched",
    "write_gradebooks",
]

UNTOUCHED = (
    "missing: the submitted notebooks hold no answer in any part (untouched), so nothing was graded; "
    "counted as a learner who sent nothing"
)


@dataclass
class StudentGrade:
    """One gradebook row: points per exercise, total, maximum, and what to look at."""

    id: str
    name: str
    points: dict[str, float] = field(default_factory=dict)
    total: float = 0.0
    max: float = 0.0
    status: str = "graded"  # graded | missing | untouched | not on roster
    solution_viewed: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)  # the instructor's override comments, "A.2: ..."

    def __repr__(self) -> str:
        return f"StudentGrade({self.id}: {self.total:g}/{self.max:g})"


def _fmt(x: float) -> str:
    return f"{x:g}"


def student_grades(records: list[Any], names: dict[str, str], roster_ids: set[str]) -> list[StudentGrade]:
    """Rows per student: an exercise earns the best points of that student's notebooks for it."""
    ids = sorted({r.student for r in records} | set(names))
    maximum = sum(exercise_max() for _ in EXERCISES)
    rows = []
    for sid in ids:
        mine = [r for r in records if r.student == sid]
        row = StudentGrade(sid, names.get(sid, ""), max=maximum)
        for ex in EXERCISES:
            per_file: dict[str, float] = {}
            for r in mine:
                if r.exercise == ex:
                    per_file[r.submission] = per_file.get(r.submission, 0.0) + r.points
            row.points[ex] = max(per_file.values(), default=0.0)
        row.total = sum(row.points.values())
        if all(r.status == "missing" for r in mine) and not untouched(mine):
            row.status = "missing"
        elif roster_ids and sid not in roster_ids:
            row.status = "not on roster"
        elif untouched(mine):
            row.status = "untouched"
        row.solution_viewed = sorted({f"{r.exercise}.{r.part}" for r in mine if r.solution_viewed})
        row.hints = sorted({f"{r.exercise}.{r.part}:{r.hints}" for r in mine if r.hints})
        row.comments = [
            f"{r.exercise}.{r.part}: {r.override['comment']}" for r in mine if r.override.get("comment")
        ]
        rows.append(row)
    return rows


def untouched(records: list[Any]) -> bool:
    """Whether a learner's notebooks hold no answer at all: every part not attempted (or already marked
    so by mark_untouched), nothing set by the instructor. Such a learner is missing: results.json and
    .csv say `missing`, grades.csv says `untouched` (the missing who sent empty notebooks), and the LMS
    files leave them blank, as they do a learner who sent nothing."""
    parts = [r for r in records if r.status != "missing" or r.message == UNTOUCHED]
    blank = ("not_attempted", "missing")
    return bool(parts) and all(r.status in blank and not r.override for r in parts)


def mark_untouched(records: list[Any]) -> None:
    """Every record of an untouched learner becomes `missing` with 0 points, its message saying why."""
    for sid in {r.student for r in records}:
        mine = [r for r in records if r.student == sid]
        if untouched(mine):
            for r in mine:
                if r.status != "missing" or r.message == UNTOUCHED:
                    r.status, r.message, r.points = "missing", UNTOUCHED, 0.0


def _lms_rows(rows: list[StudentGrade], canvas_ids: dict[str, str]) -> list[tuple[StudentGrade, str]]:
    """(row, grade) for the LMS files: a learner not on the roster cannot be matched to an LMS user
    and is left out (grades.csv and summary.md list them); one who submitted nothing, or only notebooks
    with no answer in them (untouched), gets a blank grade, which the LMS leaves ungraded, not a 0."""
    return [
        (r, "" if r.status in ("missing", "untouched") else _fmt(r.total))
        for r in rows
        if r.status != "not on roster" or r.id in canvas_ids  # Canvas' own user id needs no roster
    ]


def write_gradebooks(
    rows: list[StudentGrade],
    out: Path,
    assignment: str = ASSIGNMENT,
    canvas_ids: dict[str, str] | None = None,
) -> list[Path]:
    """grades.csv, canvas.csv and moodle.csv in out; `assignment` is the LMS column (Canvas: "Name (id)")."""
    exercises = list(EXERCISES)
    paths = [out / "grades.csv", out / "canvas.csv", out / "moodle.csv"]
    with paths[0].open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "name", *exercises, "total", "max", "status", "solution_viewed", "hints"])
        for r in rows:
            w.writerow(
                [
                    r.id,
                    r.name,
                    *(_fmt(r.points[e]) for e in exercises),
                    _fmt(r.total),
                    _fmt(r.max),
                    r.status,
                    ";".join(r.solution_viewed),
                    ";".join(r.hints),
                ]
            )
    with paths[1].open("w", newline="") as f:  # Canvas: Grades > Import, matched on SIS User ID
        w = csv.writer(f)
        w.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", assignment])
        w.writerow(["Points Possible", "", "", "", "", _fmt(rows[0].max if rows else 0)])
        for r, grade in _lms_rows(rows, canvas_ids or {}):
            # Canvas matches ID (its own user id, from a Canvas download) first, then SIS User ID (the
            # roster's id); a student known only by a Canvas user id has no SIS User ID to give.
            canvas = (canvas_ids or {}).get(r.id, "")
            w.writerow([r.name or r.id, canvas, "" if canvas == r.id else r.id, "", "", grade])
    with paths[2].open("w", newline="") as f:  # Moodle: Grades > Import > CSV file, map ID number
        w = csv.writer(f)
        w.writerow(["ID number", "Full name", assignment, "Feedback"])
        for r, grade in _lms_rows(rows, {}):
            notes = [f"solution viewed: {', '.join(r.solution_viewed)}"] if r.solution_viewed else []
            w.writerow([r.id, r.name, grade, "; ".join(notes + r.comments)])
    return paths
