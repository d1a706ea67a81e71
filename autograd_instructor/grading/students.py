"""Who submitted what: students from the folder layout or from a roster CSV."""

from __future__ import annotations

import csv
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from autograd_course.course import course_notebooks
from autograd_instructor.grading.archives import ArchiveError, is_archive, unpack
from autograd_instructor.grading.grade import Submission

__all__ = [
    "RosterError",
    "RosterRow",
    "Student",
    "find_students",
    "read_roster",
    "roster_matching",
    "submissions_of",
]


LESSON_NAMES = frozenset(p.name for p in course_notebooks())


class RosterError(ValueError):
    """A roster file that cannot be used; the message says what was expected."""


@dataclass
class Student:
    """One learner: id, name, and the files that are theirs (none: missing)."""

    id: str
    name: str = ""
    files: list[Path] = field(default_factory=list)
    on_roster: bool = True
    canvas_id: str = ""  # Canvas' own user id, when the files came from a Canvas download
    matched_by: str = ""  # how a roster row found its Canvas files ("canvas_id", "name"), for summary.md

    def __repr__(self) -> str:
        return f"Student({self.id}, {len(self.files)} files)"


def _visible_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(
        p
        for p in path.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts)
    )


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".tar.gz", ".ipynb", ".zip", ".tgz", ".tar"):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


# Canvas' "Download Submissions": one flat folder of `<name>[_LATE]_<user id>_<submission id>_<file>`.
CANVAS_FILE = re.compile(
    r"^(?P<name>[a-z0-9]+)(?:_late)?_(?P<user>\d+)_(?P<attempt>\d+)_(?P<file>.+)$", re.IGNORECASE
)
# Moodle's "Download all submissions": one folder per participant,
# `<Full name>_<participant id>_assignsubmission_<plugin>_`.
MOODLE_FOLDER = re.compile(r"^(?P<name>.+)_(?P<participant>\d+)_assign(?:submission|feedback)_\w*$")


def _entry_student(entry: Path) -> Student:
    """The student a top-level entry of the submissions folder belongs to (Canvas names understood)."""
    canvas = CANVAS_FILE.match(entry.name) if entry.is_file() else None
    if canvas:
        user = canvas["user"]
        return Student(user, canvas["name"], on_roster=False, canvas_id=user)
    return Student(entry.name if entry.is_dir() else _stem(entry), on_roster=False)


def layout_students(subs: Path) -> dict[str, Student]:
    """nbgrader's layout: submissions/<student>/...; a file directly under submissions/ is its own student.

    A Canvas download's files (`name_userid_attemptid_file`) belong to the Canvas user id they name.
    """
    found: dict[str, Student] = {}
    for entry in sorted(subs.iterdir()):
        if entry.name.startswith("."):
            continue
        new = _entry_student(entry)
        student = found.setdefault(new.id, new)
        student.files += _visible_files(entry)
    return found


def _refuse_moodle_folders(unclaimed: list[str]) -> None:
    """Moodle names folders by an internal participant number that moodle.csv cannot be matched on."""
    moodle = [sid for sid in unclaimed if MOODLE_FOLDER.match(sid)]
    if moodle:
        raise RosterError(
            f"{len(moodle)} folders look like Moodle's 'Download all submissions' ({moodle[0]!r}, ...): "
            "their numbers are Moodle participant numbers, not the ID numbers moodle.csv is imported by. "
            "Pass --roster with columns id,name,files mapping each learner's ID number to their folder "
            "(files: the folder name)"
        )


@dataclass(frozen=True)
class RosterRow:
    """One learner of the roster: id, name, the files named for them, their Canvas user id if known."""

    id: str
    name: str = ""
    files: tuple[str, ...] = ()
    canvas_id: str = ""

    def __repr__(self) -> str:
        return f"RosterRow({self.id})"


# Canvas' own gradebook export (Grades > Export) as a roster: SIS User ID is the id, ID the Canvas user id.
CANVAS_EXPORT = {"id": "SIS User ID", "name": "Student", "canvas_id": "ID"}


def read_roster(path: Path) -> list[RosterRow]:
    """The rows of a roster CSV: header id,name,files[,canvas_id] (files ';'-separated, optional),
    or Canvas' gradebook export (Student, ID, SIS User ID, ...; its Points Possible row skipped)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise RosterError(f"--roster {path}: cannot read it ({exc.strerror})") from None
    rows = list(csv.DictReader(text.splitlines()))
    canvas = bool(rows) and set(CANVAS_EXPORT.values()) <= set(rows[0])
    if not rows or ("id" not in rows[0] and not canvas):
        raise RosterError(
            f"--roster {path}: expected a CSV with a header 'id,name,files' (optional column canvas_id), "
            "or Canvas' gradebook export (Student, ID, SIS User ID, ...)"
        )
    columns = CANVAS_EXPORT if canvas and "id" not in rows[0] else {k: k for k in CANVAS_EXPORT}
    out, seen = [], set()
    for n, row in enumerate(rows, start=2):
        sid = (row.get(columns["id"]) or "").strip()
        if canvas and (row.get("Student") or "").strip().lower() == "points possible":
            continue
        if not sid and columns is CANVAS_EXPORT:
            continue  # Canvas' Test Student has no SIS User ID: nobody to grade
        if not sid:
            raise RosterError(f"--roster {path}, line {n}: empty {columns['id']}")
        if sid in seen:
            raise RosterError(f"--roster {path}, line {n}: id {sid!r} appears twice")
        seen.add(sid)
        files = tuple(f.strip() for f in (row.get("files") or "").split(";") if f.strip())
        name, canvas_id = ((row.get(columns[k]) or "").strip() for k in ("name", "canvas_id"))
        out.append(RosterRow(sid, name, files, canvas_id))
    return out


def _name_keys(name: str) -> set[str]:
    """The ways Canvas writes a name in a download's file names: its sortable name ("Smith, Jane"),
    lower-cased, letters and digits only ("smithjane"); a roster may give "Jane Smith" or "Smith, Jane"."""
    words = [re.sub(r"[^a-z0-9]", "", w) for w in re.split(r"[\s,]+", name.lower())]
    words = [w for w in words if w]
    return {"".join(words[k:] + words[:k]) for k in range(len(words))} if words else set()


def _canvas_match(row: RosterRow, canvas: dict[str, Student], names: dict[str, list[str]]) -> tuple[str, str]:
    """(Canvas user id, how) of the Canvas download entry that is this roster row's, else ("", "")."""
    if row.canvas_id and row.canvas_id in canvas:
        return row.canvas_id, "canvas_id"
    found = {user for key in _name_keys(row.name) for user in names.get(key, [])}
    return (found.pop(), "name") if len(found) == 1 else ("", "")


def _roster_files(row: RosterRow, subs: Path) -> list[Path]:
    paths = []
    for f in row.files:
        target = (subs / f).resolve()
        if subs.resolve() not in target.parents:
            raise RosterError(f"--roster: {row.id}'s file {f!r} is outside the submissions folder")
        paths += _visible_files(target) if target.exists() else []
    return paths


def _roster_students(rows: list[RosterRow], subs: Path, layout: dict[str, Student]) -> list[Student]:
    """The roster's students with their files: named files, else their own entry, else their Canvas files."""
    canvas = {sid: s for sid, s in layout.items() if s.canvas_id}
    names: dict[str, list[str]] = {}
    for sid, s in canvas.items():
        names.setdefault(s.name.lower(), []).append(sid)
    keys = Counter(k for row in rows for k in _name_keys(row.name))
    names = {k: v for k, v in names.items() if keys[k] <= 1}  # a name two roster rows share: no match
    students, taken = [], set()
    for row in rows:
        student = Student(row.id, row.name, canvas_id=row.canvas_id)
        if row.files:
            student.files = _roster_files(row, subs)
        elif row.id in layout:
            student.files = list(layout[row.id].files)
        else:
            user, how = _canvas_match(row, canvas, names)
            if user and user not in taken:
                taken.add(user)
                student.files, student.canvas_id, student.matched_by = list(canvas[user].files), user, how
        students.append(student)
    return students


def find_students(subs: Path, roster: Path | None = None) -> list[Student]:
    """Every student: from the roster (their files, their layout entry, or their Canvas download files,
    matched by the roster's canvas_id or by name), else the layout.

    Files nobody on the roster claims are graded too, as students not on the roster.
    """
    layout = layout_students(subs)
    if roster is None:
        _refuse_moodle_folders(list(layout))
        return list(layout.values())
    students = _roster_students(read_roster(roster), subs, layout)
    claimed = {p for s in students for p in s.files}
    unclaimed = []
    for sid, student in layout.items():
        rest = [p for p in student.files if p not in claimed]
        if rest and sid not in {s.id for s in students}:
            unclaimed.append(sid)
            students.append(Student(sid, student.name, rest, on_roster=False, canvas_id=student.canvas_id))
    _refuse_moodle_folders(unclaimed)
    return students


def roster_matching(students: list[Student]) -> list[str]:
    """What summary.md says of a Canvas download graded with a roster: who was matched how, who was not."""
    lines = [
        f"`{s.id}` ({s.name or 'no name'}): Canvas user {s.canvas_id}, matched by "
        + ("the roster's canvas_id" if s.matched_by == "canvas_id" else "name")
        for s in students
        if s.matched_by
    ]
    lines += [
        f"Canvas user {s.canvas_id} ({s.name}): not matched to a roster row (graded as `not on roster`); "
        "add the roster's canvas_id column"
        for s in students
        if not s.on_roster and s.canvas_id
    ]
    return lines


def _is_lesson(path: Path) -> bool:
    """A course lesson notebook (a workspace's lessons/, or a lesson's own file name)."""
    return path.suffix == ".ipynb" and ("lessons" in path.parts[:-1] or path.name in LESSON_NAMES)


def submissions_of(students: list[Student], subs: Path, scratch: Path) -> list[Submission]:
    """The notebooks to grade: files as they are, archives unpacked (or refused) into scratch.

    In a student's folder only notebooks and archives count; a file directly under subs is graded
    whatever it is, so a stray upload shows up as an error rather than vanishing.
    """
    found = []
    for n, student in enumerate(students):
        for path in student.files:
            if _is_lesson(path):  # a whole workspace submitted: its lessons are not submissions
                continue
            label = path.relative_to(subs).as_posix()
            if not is_archive(path):
                if path.parent == subs or path.suffix == ".ipynb":
                    found.append(Submission(student.id, label, path, learner=student.id))
                continue
            try:
                inner = unpack(path, scratch / f"a{n}" / label)
            except ArchiveError as exc:
                found.append(Submission(student.id, label, path, problem=str(exc), learner=student.id))
                continue
            base = scratch / f"a{n}" / label
            notebooks = [
                p
                for p in inner
                if p.suffix == ".ipynb" and not p.name.startswith(".") and not _is_lesson(p.relative_to(base))
            ]  # a zipped workspace: its lessons are skipped as they are in a folder
            if not notebooks:
                why = f"{path.name}: no notebook inside"
                found.append(Submission(student.id, label, path, problem=why, learner=student.id))
            for nb in notebooks:
                inner_label = f"{label}/{nb.relative_to(scratch / f'a{n}' / label).as_posix()}"
                found.append(Submission(student.id, inner_label, nb, learner=student.id))
    return found
