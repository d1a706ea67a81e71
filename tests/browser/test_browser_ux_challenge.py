"""The challenge as a learner sees it in JupyterLab: Run All reaches the end, one verdict per check cell."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from browser.notebook_page import NotebookPage

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize("path", ["exercises/A_detached_output.ipynb", "exercises/M1_mystery.ipynb"])
def test_run_all_on_a_fresh_exercise_reaches_the_end_with_one_verdict_per_check(
    open_notebook: Callable[[str], NotebookPage], path: str
) -> None:
    """Unsolved parts do not stop Run All; each check cell shows exactly one 'not attempted' verdict."""
    notebook = open_notebook(path).run_all()
    cells = notebook.cells()
    code = [c for c in cells if c.kind == "code" and c.source.strip()]
    assert all(c.count is not None for c in code), [c.index for c in code if c.count is None]
    checks = [c for c in code if c.source.strip().endswith(".check()")]
    assert len(checks) == 2
    for cell in checks:
        assert len(cell.outputs) == 1, (cell.index, cell.outputs)
        shown = cell.outputs[0]["shown"]
        assert "not attempted" in shown and shown.count("part") == 1, shown
        assert cell.outputs[0]["type"] != "error"
    assert notebook.problems() == []
