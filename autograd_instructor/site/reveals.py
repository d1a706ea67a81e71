"""Outputs that answer a your-turn activity, folded on the site as in a learner's copy.

A learner's copy of a lesson clears the outputs of cells marked as revealing an activity's answer
(workspace.hide_revealed_answers) until the learner runs them, after answering. A site page cannot wait
for that, so it folds those outputs behind a "Show the output" summary: the answer is one deliberate
click away instead of on the page beside the question.
"""

from __future__ import annotations

import re

from autograd_course.workspace import revealed_activity

__all__ = ["fold_revealing_outputs", "revealing_cells"]

_DIV = re.compile(r"<div\b|</div>")


def revealing_cells(nb) -> dict[str, str]:
    """{cell id: activity id} of the code cells whose output answers an activity."""
    found = ((cell.get("id", ""), revealed_activity(cell)) for cell in nb.get("cells", []))
    return {cell_id: activity for cell_id, activity in found if activity}


def _div_end(body: str, start: int) -> int:
    """The index just past the </div> that closes the <div> opening at start."""
    depth = 0
    for match in _DIV.finditer(body, start):
        depth += 1 if match.group() == "<div" else -1
        if depth == 0:
            return match.end()
    raise ValueError("unbalanced <div> in a rendered cell")


def fold_revealing_outputs(body: str, cells: dict[str, str]) -> str:
    """Wrap each revealing cell's output area in a closed <details> naming the activity it answers."""
    for cell_id, activity in cells.items():
        cell = body.find(f'id="cell-id={cell_id}"')
        wrapper = body.find('<div class="output_wrapper">', cell) if cell >= 0 else -1
        if wrapper < 0:
            continue
        end = _div_end(body, wrapper)
        summary = f"Show the output: it answers your turn {activity}, so try that first"
        body = (
            f'{body[:wrapper]}<details class="reveals"><summary>{summary}</summary>'
            f"{body[wrapper:end]}</details>{body[end:]}"
        )
    return body
