"""Challenge notebooks on disk: where they are, their tagged cells, and solution regions."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from autograd_course.course import content_dir
from autograd_course.protocol import META_KEY

__all__ = [
    "BEGIN",
    "END",
    "META_KEY",
    "challenge_cells",
    "notebook_for",
    "solution_notebooks",
    "strip_regions",
]

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
_REGION = re.compile(
    r"^([ \t]*)### BEGIN SOLUTION[^\n]*\n(.*?)^[ \t]*### END SOLUTION[^\n]*(\n|$)", re.M | re.S
)


def solution_notebooks(root: Path | None = None) -> list[Path]:
    """Every notebook in solutions/, in exercise order (A-E, then mystery rounds)."""
    return sorted(content_dir("solutions", root).glob("*.ipynb"))


def notebook_for(exercise_id: str, folder: str = "solutions", root: Path | None = None) -> Path:
    """The notebook of one exercise in a course folder (solutions/ or exercises/)."""
    found = sorted(content_dir(folder, root).glob(f"{exercise_id}_*.ipynb"))
    if not found:
        raise FileNotFoundError(f"no notebook for exercise {exercise_id!r} in {folder}/")
    return found[0]


def challenge_cells(nb: nbformat.NotebookNode) -> list[tuple[int, dict]]:
    """(index, metadata) of every cell tagged with the challenge metadata key."""
    out = []
    for i, cell in enumerate(nb.cells):
        meta = cell.get("metadata", {}).get(META_KEY)
        if isinstance(meta, dict) and isinstance(meta.get("exercise"), str):
            out.append((i, dict(meta)))
    return out


def strip_regions(source: str, placeholder: str) -> str:
    """Replace every solution region with the placeholder, indented like the BEGIN marker."""

    def repl(m: re.Match) -> str:
        indent = m.group(1)
        return "".join(f"{indent}{line}\n" for line in placeholder.splitlines())

    return _REGION.sub(repl, source).rstrip("\n")
