"""The student release: what learners pull on a hub. Lessons and exercises, never the solutions.

As nbgrader releases a student version of an assignment, `make_release(OUT)` writes a folder with
`notebooks/` and `exercises/` (the same paths as in the repository, so every link stays valid), a
README with the course map, and a marker file. Push the folder as a branch of your repository and
point the links at that branch (docs/classroom.md).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from autograd_course.course import course_map_text, course_notebooks, exercise_notebooks

__all__ = ["MARKER", "Release", "ReleaseError", "make_release"]

MARKER = ".autograd-course-release.json"  # says a folder is a release `make_release` may update


class ReleaseError(ValueError):
    """A release that cannot be written where it was asked; the message says why."""


@dataclass
class Release:
    """What `make_release` wrote."""

    out: Path
    files: list[Path] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"Release({self.out}, {len(self.files)} files)"


def _readme() -> str:
    """The release's README: how to start, the course map, where the challenge is."""

    return (
        "# Autograd Debugging\n\nOpen `notebooks/00_mental_model.ipynb` and work through the lessons"
        " in order; then the challenge in `exercises/`.\n\n```text\n" + course_map_text() + "\n```\n"
    )


def _check_target(out: Path) -> None:
    """Refuse a file, or a folder with content that is not an earlier release."""
    if out.exists() and not out.is_dir():
        raise ReleaseError(f"{out} is a file; expected a folder for the release")
    if out.is_dir() and not (out / MARKER).is_file():
        visible = [p.name for p in out.iterdir() if p.name != ".git"]
        if visible:
            raise ReleaseError(
                f"{out} holds files and is not an earlier release ({MARKER} missing); choose an empty folder"
            )


def make_release(out: Path, root: Path | None = None) -> Release:
    """Write (or update) the student release in out: notebooks/, exercises/, README.md, the marker."""

    _check_target(out)
    lessons, exercises = course_notebooks(root=root), exercise_notebooks(root=root)
    if not lessons or not exercises:
        raise ReleaseError("no course notebooks found; the installation is missing its content")
    release = Release(out)
    for folder, notebooks in (("notebooks", lessons), ("exercises", exercises)):
        (out / folder).mkdir(parents=True, exist_ok=True)
        for nb in notebooks:
            release.files.append(Path(shutil.copyfile(nb, out / folder / nb.name)))
    (out / "README.md").write_text(_readme(), encoding="utf-8")
    files = [p.relative_to(out).as_posix() for p in release.files]
    marker = {"course": "autograd-debugging-course", "files": files}
    (out / MARKER).write_text(json.dumps(marker, indent=1) + "\n", encoding="utf-8")
    release.files += [out / "README.md", out / MARKER]
    return release
