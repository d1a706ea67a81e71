"""The room: for every learner what `progress` shows them, read from the files they saved.

Reads, never runs: the verdicts each check left in the saved notebooks (activities and challenge
parts), the progress file `autograd-course check` writes, and the files' modification times.
A lesson counts as run once its notebook was saved after it arrived in the learner's home.

A graded class (challenge notebooks made by `release --graded`) has no verdict in its notebooks:
there the room counts the parts *answered* (an answer cell that is no longer the course's stub), and
tells a learner who started from one who did not by content, not by file times (a clone's files
are new too): a lesson counts as run when its cells or outputs differ from the course's copy.
"""

from __future__ import annotations

import functools
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from autograd_course.course import course_notebooks, exercise_ids, exercise_notebooks
from autograd_course.modes import GRADED, mode_of
from autograd_course.protocol import META_KEY, PROGRESS_FILE, VERDICT_MIME
from autograd_course.saved import ARRIVAL_SLACK, activities_correct, check_cells, outputs, read_notebook
from autograd_instructor.classroom.homes import CourseFolder, LearnerHome

__all__ = ["LearnerState", "learner_state", "room_state"]


@dataclass
class LearnerState:
    """One learner's state: lessons run, activities correct, challenge parts passed, last activity."""

    user: str
    learner: str
    started: bool = False
    lessons_run: list[str] = field(default_factory=list)
    activities_correct: int = 0
    activities_total: int = 0
    parts_passed: list[str] = field(default_factory=list)  # "A.1", ...: judged by `check` as `grade` judges
    parts_self_reported: list[str] = field(default_factory=list)  # passed only in the notebook's own output
    parts_total: int = 0
    graded: bool = False  # the challenge notebooks are a graded release's: parts answered, never passed
    parts_answered: list[str] = field(default_factory=list)  # "A.1", ...: answer cell no longer the stub
    last_activity: float | None = None  # seconds since the epoch
    last_file: str = ""
    problem: str = ""

    def __repr__(self) -> str:
        return f"LearnerState({self.user}, {len(self.lessons_run)} lessons, {len(self.parts_passed)} parts)"

    @property
    def last_text(self) -> str:
        """The last activity as 'YYYY-mm-dd HH:MM file', or '-'."""
        if self.last_activity is None:
            return "-"
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.last_activity)) + f" {self.last_file}"

    def to_json(self) -> dict:
        """Plain data for --json."""
        return {**asdict(self), "last_activity_text": self.last_text}


def _checked_parts(folder: CourseFolder) -> set[str]:
    """Parts `autograd-course check` saw pass, from its progress file, unless the notebook changed since."""
    try:
        state = json.loads((folder.challenge / PROGRESS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    passed = set()
    for name, entry in state.items() if isinstance(state, dict) else []:
        nb = folder.challenge / name
        if not isinstance(entry, dict) or not nb.is_file() or nb.stat().st_mtime > entry.get("mtime", 0):
            continue
        exercise = name.split("_", 1)[0]
        for status in entry.get("statuses", []):
            part, _, outcome = str(status).partition(": ")
            if part.startswith("part ") and outcome == "passed":
                passed.add(f"{exercise}.{part.removeprefix('part ')}")
    return passed


def _cells(nb: dict) -> list[tuple[str, str]]:
    """Each cell's source and outputs, without execution counts and metadata (what a save keeps)."""
    found = []
    for cell in nb.get("cells", []) if isinstance(nb, dict) else []:
        source = cell.get("source", "") if isinstance(cell, dict) else ""
        outs = [
            {k: v for k, v in o.items() if k not in ("execution_count", "metadata")}
            for o in (cell.get("outputs", []) if isinstance(cell, dict) else [])
            if isinstance(o, dict)
        ]
        found.append(("".join(source), json.dumps(outs, sort_keys=True)))
    return found


@functools.cache
def _course_lesson(name: str) -> tuple:
    """The course's own copy of a lesson, as _cells reads it."""
    path = next((p for p in course_notebooks() if p.name == name), None)
    return tuple(_cells(read_notebook(path))) if path else ()


@functools.cache
def _stubs() -> dict[tuple[str, int], str]:
    """{(exercise, part): the course's answer cell}: what an untouched notebook holds."""
    return {
        key: source for path in exercise_notebooks() for key, source in _answers(read_notebook(path)).items()
    }


def _answers(nb: dict) -> dict[tuple[str, int], str]:
    """{(exercise, part): answer cell source, stripped} of a saved challenge notebook."""
    found = {}
    for cell in nb.get("cells", []):
        meta = cell.get("metadata", {}).get(META_KEY, {}) if isinstance(cell, dict) else {}
        if isinstance(meta, dict) and meta.get("role") == "answer" and meta.get("part") in (1, 2):
            found.setdefault(
                (str(meta.get("exercise")), meta["part"]), "".join(cell.get("source", "")).strip()
            )
    return found


def _answered(nb: dict) -> set[str]:
    """The parts whose answer cell is no longer the course's stub."""
    stubs = _stubs()
    return {f"{ex}.{part}" for (ex, part), source in _answers(nb).items() if source != stubs.get((ex, part))}


def _read_graded(
    folder: CourseFolder, lessons: list[Path], challenge: list[Path], state: LearnerState
) -> None:
    """A graded class's folder: lessons run and parts answered by content; started only if any."""
    state.graded = True
    touched: list[Path] = []
    for path in lessons:
        nb = read_notebook(path)
        state.activities_total += check_cells(nb)
        state.activities_correct += len(activities_correct(nb))
        if tuple(_cells(nb)) != _course_lesson(path.name):
            touched.append(path)
            if path.name[:2] not in state.lessons_run:
                state.lessons_run.append(path.name[:2])
    for path in challenge:
        nb = read_notebook(path)
        state.parts_total += check_cells(nb)
        answered = _answered(nb)
        state.parts_answered = sorted(set(state.parts_answered) | answered)
        touched += [path] if answered else []
    state.started = state.started or bool(touched)
    if touched:
        _note_latest(folder, {p: p.stat().st_mtime for p in touched}, state)


def _note_latest(folder: CourseFolder, times: dict[Path, float], state: LearnerState) -> None:
    latest = max(times, key=times.__getitem__)
    if state.last_activity is None or times[latest] > state.last_activity:
        state.last_activity, state.last_file = (
            times[latest],
            latest.relative_to(folder.root.parent).as_posix(),
        )


def _read_folder(folder: CourseFolder, ids: list[str], state: LearnerState) -> None:
    """Add one course folder's lessons, activities and challenge parts to state."""
    current = {p.name for p in course_notebooks()}  # not a file of an earlier course version
    lessons = [p for p in folder.lesson_notebooks() if p.name in current]
    challenge = folder.challenge_notebooks(ids)
    files = lessons + challenge
    if not files:
        return
    if any(mode_of(read_notebook(p)) == GRADED for p in challenge):
        _read_graded(folder, lessons, challenge, state)
        return
    state.started = True
    times = {p: p.stat().st_mtime for p in files}
    arrival = min(times.values())
    correct: set[str] = set()
    for path in lessons:
        nb = read_notebook(path)
        state.activities_total += check_cells(nb)
        correct |= activities_correct(nb)
        if times[path] > arrival + ARRIVAL_SLACK and path.name[:2] not in state.lessons_run:
            state.lessons_run.append(path.name[:2])
    state.activities_correct += len(correct)
    passed, claimed = _checked_parts(folder), set()
    for path in challenge:
        nb = read_notebook(path)
        state.parts_total += check_cells(nb)
        claimed |= {
            f"{v.get('exercise')}.{v.get('part')}"
            for v in outputs(nb, VERDICT_MIME)
            if v.get("status") == "passed"
        }
    state.parts_passed = sorted(set(state.parts_passed) | passed)
    state.parts_self_reported = sorted((set(state.parts_self_reported) | claimed) - set(state.parts_passed))
    _note_latest(folder, times, state)


def learner_state(learner: LearnerHome) -> LearnerState:
    """What one learner has done, from their saved files."""

    state = LearnerState(learner.user, learner.learner, problem=learner.problem)
    ids = exercise_ids()
    for folder in learner.folders:
        _read_folder(folder, ids, state)
    state.lessons_run.sort()
    return state


def room_state(learners: list[LearnerHome]) -> list[LearnerState]:
    """Every learner's state, in user-name order."""
    return [learner_state(learner) for learner in sorted(learners, key=lambda h: h.user)]
