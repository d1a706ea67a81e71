"""How long a notebook takes a learner, estimated from the notebook itself by one written method.

    minutes = prose words / 130 + code lines / 8 + 5 per your-turn activity + 10 per challenge part,
    rounded up to a multiple of 5.

Prose words are the words of the Markdown cells without fenced blocks (code and Mermaid diagrams). Code lines
are the non-blank lines of the code cells a learner reads, without the `setup` and `parameters` cells.
An activity is a your-turn answer cell; a challenge part is an exercise's answer cell (proving a stage, or
writing a fix on code not seen before, takes longer than a lesson's activity). CONTRIBUTING.md states the
method; the README course map and `autograd-course map` show its result. No torch import.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "ACTIVITY_MINUTES",
    "CODE_LINES_PER_MINUTE",
    "PART_MINUTES",
    "WORDS_PER_MINUTE",
    "Estimate",
    "code_lines",
    "estimate",
    "prose_words",
]

WORDS_PER_MINUTE = 130  # dense technical prose, read to understand
CODE_LINES_PER_MINUTE = 8  # code read, run and its output compared
ACTIVITY_MINUTES = 5  # one your-turn activity in a lesson
PART_MINUTES = 10  # one part of a challenge exercise
ROUND_TO = 5
SKIPPED_TAGS = {"setup", "parameters"}
FENCE = re.compile(r"^```.*?^```[^\n]*$", re.S | re.M)


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def prose_words(cells: list[dict[str, Any]]) -> int:
    """Words in the Markdown cells, fenced blocks (code, diagrams) left out."""
    markdown = (_source(c) for c in cells if c.get("cell_type") == "markdown")
    return sum(len(FENCE.sub("", text).split()) for text in markdown)


def code_lines(cells: list[dict[str, Any]]) -> int:
    """Non-blank lines of the code cells a learner reads (not the setup or parameters cell)."""
    return sum(
        sum(1 for line in _source(c).splitlines() if line.strip())
        for c in cells
        if c.get("cell_type") == "code" and not SKIPPED_TAGS & set(c.get("metadata", {}).get("tags", []))
    )


def _answers(cells: list[dict[str, Any]], key: str) -> int:
    metas = (c.get("metadata", {}).get("autograd_course", {}) for c in cells)
    return sum(1 for m in metas if m.get("role") == "answer" and key in m)


@dataclass(frozen=True)
class Estimate:
    """What a notebook asks of a learner, and the minutes the method gives for it."""

    name: str
    words: int
    code_lines: int
    activities: int
    parts: int

    @property
    def minutes(self) -> int:
        raw = (
            self.words / WORDS_PER_MINUTE
            + self.code_lines / CODE_LINES_PER_MINUTE
            + self.activities * ACTIVITY_MINUTES
            + self.parts * PART_MINUTES
        )
        return ROUND_TO * math.ceil(raw / ROUND_TO)

    def __repr__(self) -> str:
        return (
            f"Estimate({self.name}: {self.words} words, {self.code_lines} code lines, "
            f"{self.activities} activities, {self.parts} challenge parts -> {self.minutes} min)"
        )


def estimate(notebook: Path) -> Estimate:
    """The estimate for one notebook file."""
    cells = json.loads(Path(notebook).read_text(encoding="utf-8")).get("cells", [])
    return Estimate(
        Path(notebook).name,
        prose_words(cells),
        code_lines(cells),
        _answers(cells, "yourturn"),
        _answers(cells, "exercise"),
    )
