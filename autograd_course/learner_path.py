"""Where a learner is in their workspace: each lesson's activities, the next notebook, the time left.

Read from the files the learner saved, by the rules `class-progress` uses (autograd_course.saved,
autograd_instructor.classroom.room): an activity is done when the saved lesson shows its check correct; a
lesson was opened once it was saved after the workspace was made (or after `reset` restored it). Times
are the course's stated ones (autograd_course.course_times). No torch import.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from autograd_course.course import COURSE_MAP, course_notebooks, exercise_titles, find_exercise
from autograd_course.course_times import estimate
from autograd_course.modes import mode_of
from autograd_course.saved import ARRIVAL_SLACK, activities_correct, check_cells, read_notebook
from autograd_course.workspace import LESSONS, read_progress, read_resets

__all__ = [
    "ExerciseState",
    "LessonState",
    "earlier_lessons",
    "exercise_states",
    "lesson_states",
    "minutes_text",
    "next_notebook",
]


@dataclass(frozen=True)
class LessonState:
    """One lesson in a workspace: its file (None when missing), activities correct of all, opened, minutes."""

    number: str
    title: str
    path: Path | None
    correct: int
    total: int
    opened: bool
    minutes: int
    saved: float = 0.0  # when the learner last saved it; 0 while it is as `start` or `reset` left it

    @property
    def done(self) -> bool:
        """Opened, and every activity correct."""
        return self.opened and self.correct >= self.total

    @property
    def status(self) -> str:
        """done, opened or not opened (missing when the file is gone)."""
        if self.path is None:
            return "missing (autograd-course reset restores it)"
        return "done" if self.done else "opened" if self.opened else "not opened"

    def __repr__(self) -> str:
        return f"LessonState({self.number}, {self.correct}/{self.total}, {self.status})"


@dataclass(frozen=True)
class ExerciseState:
    """One challenge exercise in a workspace, as the last `check` left it."""

    ex_id: str
    title: str
    path: Path | None
    status: str
    minutes: int
    mode: str = "practice"  # the notebook's own mode (challenge.modes), "" when there is no notebook
    saved: float = 0.0  # when the learner last saved it; 0 while it is as `start` or `reset` left it

    @property
    def done(self) -> bool:
        """Passed at the last check, not changed since."""
        return self.status == "done"

    def __repr__(self) -> str:
        return f"ExerciseState({self.ex_id}, {self.status})"


def _arrival(files: list[Path]) -> float:
    """When the workspace's notebooks arrived: the oldest modification time."""
    return min((p.stat().st_mtime for p in files), default=0.0)


def _workspace_arrival(workspace: Path) -> float:
    """When `start` (or a clone) put the workspace's lessons and exercises there."""
    exercises = [p for p in workspace.glob("*.ipynb") if p.is_file()]
    return _arrival([*_saved_lessons(workspace).values(), *exercises])


def _saved_at(workspace: Path, path: Path | None, arrival: float, resets: dict[str, float]) -> float:
    """When the learner last saved path: its modification time, or 0 while the file is still the copy that
    `start` (at arrival) or `reset` (at the time it recorded) left there."""
    if path is None:
        return 0.0
    mtime = path.stat().st_mtime
    restored = resets.get(path.relative_to(workspace).as_posix(), 0.0)
    return mtime if mtime > arrival + ARRIVAL_SLACK and mtime > restored else 0.0


def _saved_lessons(workspace: Path) -> dict[str, Path]:
    """The lesson notebooks in workspace/lessons/, by file name."""
    return {p.name: p for p in (workspace / LESSONS).glob("[0-9][0-9]_*.ipynb") if p.is_file()}


def earlier_lessons(workspace: Path) -> list[Path]:
    """Lesson files the course map no longer names: kept from an earlier version of the course (a
    lesson split or renumbered since), never counted as a current lesson of the same number."""
    current = {p.name for p in course_notebooks()}
    return sorted(path for name, path in _saved_lessons(workspace).items() if name not in current)


def lesson_states(workspace: Path) -> list[LessonState]:
    """Every lesson of the course map, in order, as saved in workspace/lessons/ under its own file
    name: a file of an earlier course version with the same number is another lesson."""
    found = _saved_lessons(workspace)
    arrival, resets = _workspace_arrival(workspace), read_resets(workspace)
    states = []
    for lesson in COURSE_MAP:
        course = lesson.notebook()
        path = found.get(course.name)
        nb = read_notebook(path) if path else read_notebook(course)
        total = check_cells(nb)
        correct = min(len(activities_correct(nb)) if path else 0, total)
        saved = _saved_at(workspace, path, arrival, resets)
        minutes = estimate(course).minutes  # lesson.minutes would find the same notebook again
        opened = saved > 0
        states.append(LessonState(lesson.number, lesson.title, path, correct, total, opened, minutes, saved))
    return states


def _exercise_status(found: list[Path], entry: dict | None, restored: float) -> str:
    """What the last check said of the exercise, unless it changed or was reset (at `restored`) since."""
    if not found:
        return "missing (autograd-course reset restores it)"
    if entry is None:
        return "not checked yet"
    mtime = found[0].stat().st_mtime
    if entry.get("mtime", 0) < restored and mtime <= restored:
        return "reset, not checked since"
    if mtime > entry.get("mtime", 0):
        return "changed since the last check"
    if entry.get("passed"):
        return "done"
    return "to do: " + ", ".join(entry.get("statuses", []))


def exercise_states(workspace: Path) -> list[ExerciseState]:
    """Every challenge exercise, in order, from the progress file `check` writes."""
    state = read_progress(workspace)
    arrival, resets = _workspace_arrival(workspace), read_resets(workspace)
    states = []
    for ex_id, title in exercise_titles().items():
        found = sorted(workspace.glob(f"{ex_id}_*.ipynb"))
        path = found[0] if found else None
        entry = state.get(path.name) if path else None
        status = _exercise_status(found, entry, resets.get(path.name, 0.0) if path else 0.0)
        course = find_exercise(ex_id)
        minutes = estimate(course).minutes if course else 0
        mode = mode_of(read_notebook(path)) if path else ""
        saved = _saved_at(workspace, path, arrival, resets)
        states.append(ExerciseState(ex_id, title, path, status, minutes, mode, saved))
    return states


def next_notebook(lessons: list[LessonState], exercises: list[ExerciseState]) -> Path | None:
    """Where to resume: the notebook the learner saved last (lesson or exercise) while it is not done, else
    the next one not done after it in course order (lessons, then the challenge), wrapping round; None when
    all is done. A notebook `reset` restored counts as saved by the learner only once they save it again."""
    ordered = [(s.path, s.done, s.saved) for s in lessons] + [(e.path, e.done, e.saved) for e in exercises]
    present = [(path, done, saved) for path, done, saved in ordered if path is not None]
    if not present:
        return None
    latest, last = max((saved, i) for i, (_, _, saved) in enumerate(present))
    if latest > 0 and not present[last][1]:
        return present[last][0]
    start = last + 1 if latest > 0 else 0
    return next((path for path, done, _ in [*present[start:], *present[:start]] if not done), None)


def minutes_text(minutes: int) -> str:
    """90 -> '1 h 30 min', 25 -> '25 min'."""
    hours, rest = divmod(minutes, 60)
    return f"{hours} h {rest} min" if hours else f"{rest} min"
