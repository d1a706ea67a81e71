"""A class's own copy of the course: the learners' install of a graded release has no notebooks of its
own, so `learn`, `progress` and `reset` work from the folder nbgitpuller cloned instead, or say what to do.

In that clone the instructor's version of every notebook is the upstream branch's
(`git show @{upstream}:path`): nbgitpuller commits a learner's edits on their local branch, never
upstream, so that is what a reset restores.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from autograd_course.course import course_notebooks

__all__ = ["NO_CONTENT", "has_content", "local_notebook", "upstream_version"]

NO_CONTENT = (
    "this is a class's install, without the course's notebooks: open notebooks/ (the lessons) and "
    "exercises/ (the challenge) in your course folder in JupyterLab; its README says what to do"
)


def has_content() -> bool:
    """Whether this install holds the course's notebooks (the learners' graded install does not)."""
    return bool(course_notebooks())


def local_notebook(name: str, folder: Path) -> Path | None:
    """The notebook in folder named by an exercise id (any case), a lesson number or a file name."""
    stem = Path(name).name.removesuffix(".ipynb")
    for path in sorted(folder.glob("*.ipynb")) if folder.is_dir() else []:
        prefix = path.name.split("_", 1)[0]
        if stem in (path.stem, path.name) or stem.upper() == prefix.upper():
            return path
    return None


def _git(folder: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=folder, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


def upstream_version(path: Path) -> bytes | str:
    """The instructor's version of path from the clone's upstream branch, or why there is none."""
    folder = path.parent
    top = _git(folder, "rev-parse", "--show-toplevel")
    upstream = _git(folder, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}")
    if not top or not upstream:
        return (
            f"{folder} is not a clone of your course with an upstream branch (nbgitpuller makes one): "
            f"rename {path.name}, then click your course link again, which brings the file back"
        )
    relative = path.resolve().relative_to(Path(top.strip()).resolve()).as_posix()
    try:
        done = subprocess.run(
            ["git", "show", f"{upstream.strip()}:{relative}"], cwd=folder, capture_output=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return f"git could not read {relative} from {upstream.strip()}"
    if done.returncode != 0:
        return f"{relative} is not in {upstream.strip()}: it is not one of your course's notebooks"
    return done.stdout
