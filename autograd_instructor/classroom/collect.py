"""Collect: copy each learner's challenge notebooks from the hub's homes into the layout `grade` reads.

`OUT/<user>/<path in their home>` for every challenge notebook, and a roster (id,name,files) that
gives `grade` each learner's id (course.json, else the hub user name) and names them by user name.
Copies, never moves; a symlink or a file whose real path leaves the learner's home is refused.
"""

from __future__ import annotations

import csv
import io
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from autograd_course.course import exercise_ids
from autograd_instructor.classroom.homes import LearnerHome, is_challenge_name

__all__ = ["CollectError", "Collected", "collect_work", "roster_csv"]


class CollectError(ValueError):
    """Collecting cannot start (the output folder, duplicate learner ids); the message says why."""


@dataclass
class Collected:
    """What was copied for whom, who had nothing, and what was refused (with the reason)."""

    copied: dict[str, list[Path]] = field(default_factory=dict)  # user -> paths relative to OUT
    ids: dict[str, str] = field(default_factory=dict)  # user -> learner id
    empty: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"Collected({len(self.copied)} learners, {len(self.empty)} empty, {len(self.refused)} refused)"


def _inside(path: Path, home: Path) -> bool:
    """Whether path's real location is inside home's real location."""
    real, base = path.resolve(), home.resolve()
    return real == base or base in real.parents


def _candidates(learner: LearnerHome, ids: list[str]) -> list[Path]:
    """Every challenge notebook in the learner's course folders, symlinks included (to refuse them)."""

    found = []
    for folder in learner.folders:
        if folder.challenge.is_dir() and not folder.challenge.is_symlink():
            found += sorted(p for p in folder.challenge.glob("*.ipynb") if is_challenge_name(p.name, ids))
    return found


def collect_work(learners: list[LearnerHome], out: Path) -> Collected:
    """Copy every learner's challenge notebooks under out/<user>/; out must be new or empty."""

    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise CollectError(f"{out} exists and is not an empty folder; collect into a new folder")
    seen: dict[str, str] = {}
    for learner in learners:
        if learner.learner in seen:
            raise CollectError(
                f"learners {seen[learner.learner]!r} and {learner.user!r} both have learner id "
                f"{learner.learner!r} (course.json); give each their own id first"
            )
        seen[learner.learner] = learner.user
    ids, done = exercise_ids(), Collected()
    for learner in learners:
        done.ids[learner.user] = learner.learner
        if learner.problem:
            done.refused.append(f"{learner.user}: {learner.problem}")
        for path in _candidates(learner, ids):
            where = f"{learner.user}: {path.relative_to(learner.home)}"
            if path.is_symlink() or not path.is_file():
                done.refused.append(f"{where} is a symlink or not a regular file")
            elif not _inside(path, learner.home):
                done.refused.append(f"{where} lies outside the learner's home")
            else:
                target = out / learner.user / path.relative_to(learner.home)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)
                done.copied.setdefault(learner.user, []).append(target.relative_to(out))
        if learner.user not in done.copied:
            done.empty.append(learner.user)
    return done


def roster_csv(done: Collected, names: dict[str, str] | None = None) -> str:
    """The roster `grade --roster` reads: id (the learner id), name, files.

    names: {learner id: name} from the roster the class was released with; a learner it does not
    name is named by their user name.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["id", "name", "files"])
    for user, learner in done.ids.items():
        files = ";".join(p.as_posix() for p in done.copied.get(user, []))
        writer.writerow([learner, (names or {}).get(learner) or user, files])
    return buffer.getvalue()
