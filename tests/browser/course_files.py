"""Where the course and the browser fixtures live, and which notebooks to parametrize over."""

from __future__ import annotations

from pathlib import Path

__all__ = ["FIXTURES", "REPO", "course_notebooks"]

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def course_notebooks(folder: str) -> list[str]:
    """The notebooks under `folder` of the repository (paths relative to it), found at collection time."""
    return sorted(
        p.relative_to(REPO).as_posix()
        for p in (REPO / folder).rglob("*.ipynb")
        if ".ipynb_checkpoints" not in p.parts
    )
