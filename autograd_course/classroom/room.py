"""The room: for every learner what `progress` shows them, read from the files they saved.

Reads, never runs: the verdicts each check left in the saved notebooks (activities and challenge
parts), the progress file `autograd-course check` writes, and the files' modification times.
A lesson counts as run once its notebook was saved after it arrived in the learner's home.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field

from autograd_course.classroom.homes import CourseFolder, LearnerHome
from autograd_course.course import course_notebooks, exercise_ids
from autograd_course.protocol import PROGRESS_FILE, VERDICT_MIME
from autograd_course.saved import ARRIVAL_SLACK, activities_correct, check_cells, outputs, read_notebook

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


def _read_folder(folder: CourseFolder, ids: list[str], state: LearnerState) -> None:
    """Add one course folder's lessons, activities and challenge parts to state."""
    current = {p.name for p in course_notebooks()}  # not a file of an earlier course version
    lessons = [p for p in folder.lesson_notebooks() if p.name in current]
    challenge = folder.challenge_notebooks(ids)
    files = lessons + challenge
    if not files:
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
    latest = max(times, key=times.__getitem__)
    if state.last_activity is None or times[latest] > state.last_activity:
        state.last_activity, state.last_file = (
            times[latest],
            latest.relative_to(folder.root.parent).as_posix(),
        )


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
