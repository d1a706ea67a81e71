"""A learner's workspace: what `start` copies there, where `reset` keeps backups, who the learner is.

Layout of a workspace (default `my-work/`): the challenge notebooks at the top (`A_*.ipynb` ...,
graded by `autograd-course check`), the lessons in `lessons/`, replaced files in `backups/`,
the learner id (from `start --seed`) in `course.json`. Nothing here overwrites a learner's file.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from autograd_course.course import course_notebooks, exercise_notebooks
from autograd_course.learner import recorded_learner, stamp_learner, stamped_learner, write_learner
from autograd_course.protocol import LEARNER_FILE, META_KEY, PROGRESS_FILE

__all__ = [
    "BACKUPS",
    "LEARNER_FILE",
    "LESSONS",
    "PROGRESS_FILE",
    "RESETS_FILE",
    "Populated",
    "backup_path",
    "copy_notebook",
    "hide_revealed_answers",
    "populate",
    "read_progress",
    "read_resets",
    "record_reset",
    "recorded_learner",
    "revealed_activity",
    "write_learner",
    "write_progress",
]

LESSONS = "lessons"
BACKUPS = "backups"  # visible on purpose; older versions used the hidden .backups/, left where it is
EXERCISE_LINK = "](../exercises/"  # how a lesson in notebooks/ links to a challenge notebook
RESETS_FILE = PurePosixPath(".autograd-course") / "resets.json"  # when `reset` last restored each file
REVEALS = "reveals"  # cell metadata autograd_course.reveals = "NN.k": its output shows activity NN.k's answer


@dataclass
class Populated:
    """What `populate` did: the files it copied, the learner's files it kept, the kept ones it stamped."""

    copied: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)
    stamped: list[Path] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"Populated({len(self.copied)} copied, {len(self.kept)} kept, {len(self.stamped)} stamped)"


def revealed_activity(cell: dict) -> str | None:
    """The activity id a code cell's output answers ("NN.k"), None for any other cell."""
    if cell.get("cell_type") != "code":
        return None
    return cell.get("metadata", {}).get(META_KEY, {}).get(REVEALS) or None


def hide_revealed_answers(nb: dict) -> list[str]:
    """Clear the outputs of the cells marked as revealing an activity's answer; returns those activity ids.

    The stored lessons keep these outputs (strict nbval compares them); a learner's copy shows them only
    when the learner runs the cell, after answering.
    """
    hidden = []
    for cell in nb.get("cells", []):
        if activity := revealed_activity(cell):
            cell["outputs"], cell["execution_count"] = [], None
            hidden.append(activity)
    return hidden


def copy_notebook(source: Path, target: Path, learner: str | None = None, lesson: bool = False) -> None:
    """Copy one course notebook; stamp the learner in an exercise, point a lesson's links at the workspace."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if learner is None and not lesson:
        shutil.copyfile(source, target)
        return
    nb = json.loads(source.read_text(encoding="utf-8"))
    if lesson:  # the workspace keeps the exercises one level up from lessons/, not in ../exercises/
        hide_revealed_answers(nb)
        for cell in nb.get("cells", []):
            if cell.get("cell_type") == "markdown":
                text = "".join(cell["source"]).replace(EXERCISE_LINK, "](../")
                cell["source"] = text.splitlines(keepends=True)
    if learner is not None:
        stamp_learner(nb, learner)
    target.write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


def _plan(workspace: Path) -> list[tuple[Path, Path, bool]]:
    """(source, target, is_exercise) for every file a workspace holds."""
    lessons = [(nb, workspace / LESSONS / nb.name, False) for nb in course_notebooks()]
    return lessons + [(nb, workspace / nb.name, True) for nb in exercise_notebooks()]


def populate(workspace: Path, learner: str | None = None) -> Populated:
    """Copy every lesson and exercise the workspace lacks; files already there are kept as they are."""
    plan = _plan(workspace)
    if not plan:
        raise FileNotFoundError("no course notebooks found; the installation is missing its content")
    done = Populated()
    for source, target, is_exercise in plan:
        if target.exists():
            done.kept.append(target)
            if is_exercise and learner is not None and _stamp_kept(target, learner):
                done.stamped.append(target)
        else:
            copy_notebook(source, target, learner if is_exercise else None, lesson=not is_exercise)
            done.copied.append(target)
    return done


def _stamp_kept(target: Path, learner: str) -> bool:
    """Stamp the learner into a kept exercise notebook that has no stamp yet (its cells stay as they are).

    Without it, `start` then `start --seed ID` would leave notebooks graded by another id than the one
    the kernel draws their variant with. A notebook stamped for someone else is left alone.
    """
    try:
        nb = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(nb, dict) or stamped_learner(nb) is not None:
        return False
    stamp_learner(nb, learner)
    partial = target.with_name(f".{target.name}.stamping")
    partial.write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    partial.replace(target)  # atomic: the learner's notebook is never half-written
    return True


def backup_path(workspace: Path, target: Path) -> Path:
    """A new, unused file name in workspace/backups/ for target, stamped with the current time."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder = workspace / BACKUPS
    candidate = folder / f"{target.stem}.{stamp}.ipynb"
    n = 1
    while candidate.exists():
        candidate = folder / f"{target.stem}.{stamp}-{n}.ipynb"
        n += 1
    return candidate


def write_progress(workspace: Path, records: list[Any], files: dict[str, Path]) -> None:
    """Remember each checked notebook's outcome and modification time, for `progress`."""
    path = workspace / PROGRESS_FILE
    state = read_progress(workspace)
    for name, nb in files.items():
        mine = [r for r in records if r.submission == name]
        before = state.get(name) if isinstance(state.get(name), dict) else {}
        checks = before.get("checks", 0) if isinstance(before.get("checks"), int) else 0
        state[name] = {
            "checks": checks + 1,  # every `check` run is an attempt, recorded like a check() in the notebook
            "mtime": nb.stat().st_mtime,
            "exercises": sorted({r.exercise for r in mine}),
            "passed": bool(mine) and all(r.status == "passed" for r in mine),
            "statuses": [f"part {r.part}: {r.status}" if r.part else r.status for r in mine],
        }
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(state, indent=1) + "\n")


def read_progress(workspace: Path) -> dict:
    """The progress state `check` wrote, or {} when there is none (or it is unreadable)."""
    try:
        data = json.loads((workspace / PROGRESS_FILE).read_text())
    except (OSError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def record_reset(workspace: Path, target: Path) -> None:
    """Remember target's modification time as `reset` left it: until the learner saves it again it is the
    course's copy, not the notebook they worked on last, nor one changed since its last check."""
    path = workspace / RESETS_FILE
    state = read_resets(workspace)
    state[target.relative_to(workspace).as_posix()] = target.stat().st_mtime
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({name: state[name] for name in sorted(state)}, indent=1) + "\n")


def read_resets(workspace: Path) -> dict[str, float]:
    """The modification time `reset` left on each file it restored, by path relative to the workspace."""
    try:
        data = json.loads((workspace / RESETS_FILE).read_text())
    except (OSError, json.JSONDecodeError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {name: t for name, t in data.items() if isinstance(t, (int, float))}
