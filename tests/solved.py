"""A solved challenge notebook for one learner: the committed solution with that learner's own answers.

A committed solution in solutions/ repairs the default variant only; a learner graded under their own
id (a folder, a roster, a hub user) draws another variant, whose code the fix must repair.
"""

from __future__ import annotations

import nbformat

from autograd_course.course import course_root
from autograd_instructor.challenge import PARTS, variant_for
from autograd_instructor.challenge.notebooks import challenge_cells

SOLUTIONS = course_root() / "solutions"


def committed_solution(ex_id: str) -> nbformat.NotebookNode:
    """The committed solution notebook of one exercise (the default variant's answers)."""
    return nbformat.read(next(SOLUTIONS.glob(f"{ex_id}_*.ipynb")), as_version=4)


def solved_for(learner: str | None, ex_id: str) -> nbformat.NotebookNode:
    """The solution notebook with every answer cell holding the reference answer of learner's variant."""
    nb = committed_solution(ex_id)
    variant = variant_for(learner, ex_id)
    for i, meta in challenge_cells(nb):
        if meta["role"] == "answer":
            nb.cells[i].source = PARTS[meta["part"]].solution(variant)
    return nb
