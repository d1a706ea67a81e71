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
from pathlib import Path

from autograd_course.course import course_notebooks, exercise_notebooks
from autograd_course.learner import recorded_learner, write_learner
from autograd_course.protocol import LEARNER_FILE, META_KEY, PROGRESS_FILE

__all__ = [
    "BACKUPS",
    "LEARNER_FILE",
    "LESSONS",
    "PROGRESS_FILE",
    "Populated",
    "backup_path",
    "copy_notebook",
    "hide_revealed_answers",
    "populate",
    "recorded_learner",
    "write_learner",
]

LESSONS = "lessons"
BACKUPS = "backups"  # visible on purpose; older versions used the hidden .backups/, left where it is
EXERCISE_LINK = "](../exercises/"  # how a lesson in notebooks/ links to a challenge notebook
REVEALS = "reveals"  # cell metadata autograd_course.reveals = "NN.k": its output shows activity NN.k's answer


@dataclass
class Populated:
    """What `populate` did: the files it copied and the learner's files it kept."""

    copied: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"Populated({len(self.copied)} copied, {len(self.kept)} kept)"


def hide_revealed_answers(nb: dict) -> list[str]:
    """Clear the outputs of the cells marked as revealing an activity's answer; returns those activity ids.

    The stored lessons keep these outputs (strict nbval compares them); a learner's copy shows them only
    when the learner runs the cell, after answering.
    """
    hidden = []
    for cell in nb.get("cells", []):
        activity = cell.get("metadata", {}).get(META_KEY, {}).get(REVEALS)
        if activity and cell.get("cell_type") == "code":
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
        nb.setdefault("metadata", {}).setdefault(META_KEY, {})["learner"] = learner
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
        else:
            copy_notebook(source, target, learner if is_exercise else None, lesson=not is_exercise)
            done.copied.append(target)
    return done


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
