"""The checker itself on fixture notebooks, and an exercise's "not attempted" verdict, in JupyterLab."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from browser.notebook_page import NotebookPage

pytestmark = [pytest.mark.browser, pytest.mark.slow]

OpenNotebook = Callable[[str], "NotebookPage"]


# The fixture pins down how a NotAttemptedError (a learner calling the placeholder) renders: one short
# line, no traceback. Shipped exercises never raise from a check: test_browser_ux_challenge.py covers them.
@pytest.mark.parametrize("path", ["fixtures/exercise_like.ipynb"])
def test_exercise_check_shows_short_verdict(open_notebook: OpenNotebook, path: str) -> None:
    """A check cell that raises NotAttemptedError shows a one-line "not attempted" verdict, no traceback."""
    notebook = open_notebook(path).run_every_cell()
    errors = [
        (c.index, o["shown"].strip()) for c in notebook.cells() for o in c.outputs if o["type"] == "error"
    ]
    assert errors, f"no check cell failed in the fixture\n{notebook.report([])}"
    for index, shown in errors:
        lines = shown.splitlines()
        assert re.search(r"not attempted", shown, re.IGNORECASE), (
            f"cell {index} shows {shown[:500]!r}\n{notebook.report([])}"
        )
        assert len(lines) <= 3 and "Traceback" not in shown and "---" not in shown, (
            f"cell {index} shows a long traceback ({len(lines)} lines): {shown[:500]!r}\n"
            + notebook.report([])
        )
    notebook.keep_screenshot()


def test_checker_passes_a_healthy_notebook(open_notebook: OpenNotebook) -> None:
    """The checks find nothing in a notebook with a diagram, a warning, plots, a live graph and widgets."""
    notebook = open_notebook("fixtures/healthy.ipynb").run_all()
    problems = notebook.problems()
    assert not problems, notebook.report(problems)
    cells = notebook.cells()
    assert sum(d["ok"] for c in cells for d in c.mermaid) == 2, notebook.report([])
    assert sum(c.images.count(True) for c in cells) >= 2, notebook.report([])
    for kind in ("slider", "checkbox"):
        interaction = notebook.interact((kind,))
        assert interaction is not None and interaction.changed, f"{interaction!r}\n{notebook.report([])}"


def test_checker_fails_a_broken_notebook(open_notebook: OpenNotebook) -> None:
    """An invalid Mermaid block, two broken widgets and a cell error are each reported, on their cells."""
    notebook = open_notebook("fixtures/broken.ipynb").run_all()
    problems = notebook.problems(settle=5.0)
    found = {(p.check, p.cell) for p in problems}
    message = notebook.report(problems)
    assert ("mermaid", 0) in found, message
    assert ("widget", 1) in found, message  # a widget whose frontend module does not exist
    assert ("widget", 2) in found, message  # a widget view whose model is gone
    assert ("cell error", 3) in found, message
    assert any(p.check == "console" and "no-such-widget-module" in p.message for p in problems), message
    assert not [p for p in problems if p.check in ("plot", "not run", "not finished")], message
