"""An answer's earlier cell that never ends: the part is the grader's timeout, and its record names
the cell that was still running (its number and first line), for each part, in a real kernel with a
short --timeout, sandboxed where bubblewrap is. The first line is the learner's text: redacted like
the rest (redact.py)."""

from __future__ import annotations

import nbformat
import pytest

from autograd_course.execution.sandbox import choose_sandbox
from autograd_instructor.challenge.hidden import hidden_runs
from autograd_instructor.grading.grade import Submission, grade_folder
from autograd_instructor.grading.redact import HIDDEN

pytestmark = pytest.mark.slow

SEED = hidden_runs(None, "D", 1)[0][1]  # part 1's first hidden seed, as an answer could print it
# It sleeps, so the two timeouts (one per part) wait without burning a core the other worker needs.
HANGS = f"slow = 1  # {SEED}\nimport time\nwhile True:\n    time.sleep(0.5)\n"
QUICK = "scale = 2.0\n"


def _notebook() -> nbformat.NotebookNode:
    """Cells 1-2 ordinary (the second never ends), then exercise D's answers, which use both."""
    cells = [nbformat.v4.new_code_cell(QUICK), nbformat.v4.new_code_cell(HANGS)]
    answers = {
        1: "stage = Stage.OK\nevidence = slow * scale\n",
        2: "def fixed_step(model, optimizer, inputs, targets):\n    return slow * scale\n",
    }
    for part, source in answers.items():
        cell = nbformat.v4.new_code_cell(source)
        cell.metadata["autograd_course"] = {"exercise": "D", "part": part, "role": "answer"}
        cells.append(cell)
    return nbformat.v4.new_notebook(cells=cells)


def test_a_hanging_earlier_cell_is_named_in_its_parts_timeout(tmp_path):
    path = tmp_path / "hangs.ipynb"
    nbformat.write(_notebook(), path)
    sandbox = choose_sandbox("auto", hidden=[tmp_path])  # bubblewrap where the machine has it
    records = grade_folder(
        [Submission("h", "hangs.ipynb", path)], timeout=20, progress=False, sandbox=sandbox
    )
    assert [(r.part, r.status) for r in records] == [(1, "timeout"), (2, "timeout")]
    for r in records:
        assert "ran longer than 20 s" in r.message, r.message
        assert "cell 2, which your answer uses, was still running" in r.message, r.message
        assert r.trail["checks"] and {c["status"] for c in r.trail["checks"]} == {"not_run"}
    assert f"(it starts `slow = 1  # {HIDDEN}`)" in records[0].message  # part 1's seed, redacted
    assert f"(it starts `slow = 1  # {SEED}`)" in records[1].message  # not one of part 2's seeds
