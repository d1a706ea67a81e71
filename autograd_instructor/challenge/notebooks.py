"""Challenge notebooks on disk: where they are, their tagged cells, and solution regions."""

from __future__ import annotations

from pathlib import Path

import nbformat

from autograd_course.course import content_dir
from autograd_course.protocol import META_KEY

__all__ = [
    "BEGIN",
    "END",
    "META_KEY",
    "challenge_cells",
    "solution_notebooks",
    "strip_regions",
]

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"


def solution_notebooks(root: Path | None = None) -> list[Path]:
    """Every notebook in solutions/, in exercise order (A-E, then mystery rounds)."""
    return sorted(content_dir("solutions", root).glob("*.ipynb"))


def challenge_cells(nb: nbformat.NotebookNode) -> list[tuple[int, dict]]:
    """(index, metadata) of every cell tagged with the challenge metadata key."""
    out = []
    for i, cell in enumerate(nb.cells):
        meta = cell.get("metadata", {}).get(META_KEY)
        if isinstance(meta, dict) and isinstance(meta.get("exercise"), str):
            out.append((i, dict(meta)))
    return out


def strip_regions(source: str, placeholder: str) -> str:
    """Replace every solution region with the placeholder, indented like the BEGIN marker.

    Markers must pair up, BEGIN then END, unnested: anything else raises ValueError naming the line.
    """
    out: list[str] = []
    begin: int | None = None
    for number, line in enumerate(source.splitlines(), 1):
        marker = line.strip()
        if marker.startswith(BEGIN):
            if begin is not None:
                raise ValueError(f"line {number}: {BEGIN} inside the region opened on line {begin}")
            begin, indent = number, line[: len(line) - len(line.lstrip())]
            out += [f"{indent}{p}" for p in placeholder.splitlines()]
        elif marker.startswith(END):
            if begin is None:
                raise ValueError(f"line {number}: {END} without a {BEGIN} before it")
            begin = None
        elif begin is None:
            out.append(line)
    if begin is not None:
        raise ValueError(f"line {begin}: {BEGIN} is never closed by {END}")
    return "\n".join(out).rstrip("\n")
