"""Every course notebook run in a real JupyterLab: no errors, everything drawn, widgets live.

Under `--dist loadfile` each notebook is scheduled on its own (tests/conftest.py: SPREAD_PER_TEST), so
the workers share the notebooks as they finish them instead of taking fixed halves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from browser.course_files import course_notebooks
from browser.notebook_page import assert_works_in_jupyterlab

if TYPE_CHECKING:
    from browser.notebook_page import NotebookPage

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize("path", course_notebooks("notebooks"))
def test_course_notebook_runs_clean_in_jupyterlab(
    open_notebook: Callable[[str], NotebookPage], path: str
) -> None:
    """A course notebook works for a reader who opens it in JupyterLab and runs all cells."""
    assert_works_in_jupyterlab(open_notebook(path))
