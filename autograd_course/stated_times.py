"""Each lesson states its own time under its `## Goal` heading, written from course_times so it cannot drift.

    **Time:** about 55 minutes: reading, running every cell and 3 your-turn activities.

`python -m autograd_course.readme_map` writes these lines with the README's course map; `stale_lessons` lists
the lessons whose line is missing or disagrees with the method. No torch import.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from autograd_course.course_times import STATED_TIME, Estimate, estimate

__all__ = ["GOAL", "stale_lessons", "stated_minutes", "time_line", "update_lesson"]

GOAL = re.compile(r"^## Goal[ \t]*$", re.M)


def time_line(found: Estimate) -> str:
    """The sentence a lesson states its time in."""
    count = len(found.activities)
    activities = f"{count} your-turn {'activity' if count == 1 else 'activities'}"
    return f"**Time:** about {found.minutes} minutes: reading, running every cell and {activities}."


def stated_minutes(notebook: Path) -> int | None:
    """The minutes the lesson states, or None when it states none."""
    for cell in nbformat.read(notebook, as_version=4).cells:
        match = STATED_TIME.search(cell.source) if cell.cell_type == "markdown" else None
        if match:
            return int(match.group(1))
    return None


def _with_line(source: str, line: str) -> str:
    if STATED_TIME.search(source):
        return STATED_TIME.sub(line, source, count=1)
    heading = GOAL.search(source)
    return f"{source[: heading.end()]}\n\n{line}{source[heading.end() :]}"


def update_lesson(notebook: Path, found: Estimate | None = None) -> bool:
    """Write the lesson's time line under its Goal heading; True when the file changed. `found` is
    the lesson's estimate when the caller already made it (stale_lessons)."""
    book = nbformat.read(notebook, as_version=4)
    cells = [c for c in book.cells if c.cell_type == "markdown"]
    home = next((c for c in cells if STATED_TIME.search(c.source)), None)
    home = home or next((c for c in cells if GOAL.search(c.source)), None)
    if home is None:
        raise ValueError(f"{Path(notebook).name} has no '## Goal' heading to state its time under")
    new = _with_line(home.source, time_line(found or estimate(notebook)))
    if new == home.source:
        return False
    home.source = new
    nbformat.write(book, notebook)
    return True


def stale_lessons(folder: Path) -> dict[str, Estimate]:
    """The lessons in folder whose stated time is missing or is not the method's, by file name, each
    with the method's estimate (update_lesson writes it without estimating again)."""
    stale = {}
    for path in sorted(Path(folder).glob("[0-9][0-9]_*.ipynb")):
        found = estimate(path)
        if stated_minutes(path) != found.minutes:
            stale[path.name] = found
    return stale
