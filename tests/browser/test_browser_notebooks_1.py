"""Course notebooks 1st, 3rd, ... run in a real JupyterLab: no errors, everything drawn, widgets live.

The notebooks are split over two files so that two pytest-xdist workers (`--dist loadfile`) share them.
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


@pytest.mark.parametrize("path", course_notebooks("notebooks")[0::2])
def test_course_notebook_in_jupyterlab(open_notebook: Callable[[str], NotebookPage], path: str) -> None:
    """A course notebook works for a reader who opens it in JupyterLab and runs all cells."""
    assert_works_in_jupyterlab(open_notebook(path))
