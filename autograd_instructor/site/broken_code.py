"""An exercise page's broken code: the committed exercises store no outputs, so the site prints it itself.

Every exercise's setup cell ends in `print(ex.code())`; the page shows what that prints for the default
variant (no learner id), as catalogue.render writes it, with a note that a learner's own copy draws its
own variant.
"""

from __future__ import annotations

import re

import nbformat

from autograd_instructor.challenge.catalogue import render
from autograd_instructor.challenge.draw import variant_for
from autograd_instructor.challenge.notebooks import challenge_cells

__all__ = ["CODE_CALL", "VARIANT_NOTE", "exercise_id", "show_broken_code"]

CODE_CALL = re.compile(r"^print\(ex\.code\(\)\)\s*$", re.M)
VARIANT_NOTE = (
    "The broken code of the default variant: what this cell prints when no learner id is set. Your own "
    "copy (<code>autograd-course start</code>) draws its own variant, so its code may differ."
)


def exercise_id(nb: nbformat.NotebookNode) -> str | None:
    """The exercise a challenge notebook belongs to (its tagged cells say), or None for a lesson."""
    ids = {meta["exercise"] for _i, meta in challenge_cells(nb)}
    return ids.pop() if len(ids) == 1 else None


def show_broken_code(nb: nbformat.NotebookNode) -> int:
    """Give each output-less `print(ex.code())` cell the default variant's code and the note; the count."""
    ex_id = exercise_id(nb)
    if ex_id is None:
        return 0
    count = 0
    for cell in nb.cells:
        if cell.cell_type != "code" or cell.get("outputs") or not CODE_CALL.search(cell.source):
            continue
        code = render(variant_for(None, ex_id))
        cell.outputs = [
            nbformat.v4.new_output("stream", name="stdout", text=code + "\n"),
            nbformat.v4.new_output(
                "display_data", {"text/html": f'<p class="variant-note">{VARIANT_NOTE}</p>'}
            ),
        ]
        count += 1
    return count
