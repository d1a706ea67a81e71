"""The learners' home folders on a hub and the course folders in them.

HOMES holds one folder per learner, named by the hub user name (TLJH names them `jupyter-<user>`:
pass that prefix). In a home, the course sits where nbgitpuller clones it (`<repo>/notebooks/`,
`<repo>/exercises/`) or where `autograd-course start` makes a workspace (`my-work/lessons/`,
`my-work/A_*.ipynb`). Symlinks are never followed: a learner could point one anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from autograd_course.course import exercise_ids
from autograd_course.learner import recorded_learner

__all__ = ["CourseFolder", "LearnerHome", "find_homes", "is_challenge_name"]


def is_challenge_name(name: str, ids: list[str]) -> bool:
    """Whether a file name is one of the challenge notebooks (A_*.ipynb, M1_*.ipynb, ...)."""
    return name.endswith(".ipynb") and name.split("_", 1)[0] in ids and "_" in name


@dataclass(frozen=True)
class CourseFolder:
    """One copy of the course in a home: its lessons folder and its challenge folder."""

    root: Path
    lessons: Path
    challenge: Path
    layout: str  # "nbgitpuller" or "start"

    def __repr__(self) -> str:
        return f"CourseFolder({self.root.name}, {self.layout})"

    def lesson_notebooks(self) -> list[Path]:
        """The saved lessons (NN_*.ipynb), plain files only."""
        return _plain(self.lessons, "[0-9][0-9]_*.ipynb")

    def challenge_notebooks(self, ids: list[str]) -> list[Path]:
        """The saved challenge notebooks, plain files only."""
        return [p for p in _plain(self.challenge, "*.ipynb") if is_challenge_name(p.name, ids)]


@dataclass
class LearnerHome:
    """One learner: hub user name, home folder, learner id and the course folders found there."""

    user: str
    home: Path
    learner: str
    folders: list[CourseFolder] = field(default_factory=list)
    problem: str = ""  # why the home could not be read, if it could not

    def __repr__(self) -> str:
        return f"LearnerHome({self.user}, learner={self.learner}, {len(self.folders)} course folders)"


def _plain(folder: Path, pattern: str) -> list[Path]:
    """Files matching pattern directly in folder that are regular files, not symlinks."""
    if folder.is_symlink() or not folder.is_dir():
        return []
    return sorted(p for p in folder.glob(pattern) if p.is_file() and not p.is_symlink())


def course_folders(home: Path, ids: list[str]) -> list[CourseFolder]:
    """The course folders directly under home (never through a symlink), in name order."""
    found = []
    for child in sorted(home.iterdir()):
        if child.name.startswith(".") or child.is_symlink() or not child.is_dir():
            continue
        if (child / "exercises").is_dir() or (child / "notebooks").is_dir():
            found.append(CourseFolder(child, child / "notebooks", child / "exercises", "nbgitpuller"))
        elif (child / "lessons").is_dir() or any(is_challenge_name(p.name, ids) for p in child.iterdir()):
            found.append(CourseFolder(child, child / "lessons", child, "start"))
    return found


def _learner_id(user: str, folders: list[CourseFolder]) -> str:
    """The id recorded in a workspace's course.json, else the hub user name (what the kernel uses)."""
    for folder in folders:
        recorded = recorded_learner(folder.root)
        if recorded:
            return recorded
    return user


def find_homes(homes: Path, prefix: str = "") -> list[LearnerHome]:
    """Every learner under homes, by user name (folder name without prefix); ValueError for a bad folder."""

    if not homes.is_dir():
        raise ValueError(f"{homes} is not a folder; expected the folder that holds the learners' homes")
    ids = exercise_ids()
    learners = []
    for home in sorted(homes.iterdir()):
        if home.name.startswith(".") or home.is_symlink() or not home.is_dir():
            continue
        if prefix and not home.name.startswith(prefix):
            continue
        user = home.name[len(prefix) :]
        try:
            folders = course_folders(home, ids)
            links = sorted(c.name for c in home.iterdir() if c.is_symlink() and not c.name.startswith("."))
        except OSError as exc:
            learners.append(LearnerHome(user, home, user, [], f"cannot read {home}: {exc.strerror}"))
            continue
        note = f"symlinks not followed: {', '.join(links)}" if links else ""
        learners.append(LearnerHome(user, home, _learner_id(user, folders), folders, note))
    return learners
