"""Every course notebook run in a real JupyterLab: no errors, everything drawn, widgets live."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from course_files import course_notebooks

if TYPE_CHECKING:
    from notebook_page import NotebookPage

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def check_in_jupyterlab(notebook: NotebookPage) -> None:
    """Run all cells; assert nothing is broken; move the first control and assert its output follows."""
    notebook.run_all()
    problems = notebook.problems()
    assert not problems, notebook.report(problems)
    interaction = notebook.interact()
    if interaction is not None:
        assert interaction.changed, notebook.report([]) + (
            f"\n  moving the first {interaction.kind} did not change the output after it:"
            f" {interaction.before[:300]!r}"
        )
    notebook.screenshot()


@pytest.mark.parametrize("path", course_notebooks("notebooks"))
def test_course_notebook_in_jupyterlab(open_notebook: Callable[[str], NotebookPage], path: str) -> None:
    """A course notebook works for a reader who opens it in JupyterLab and runs all cells."""
    check_in_jupyterlab(open_notebook(path))
