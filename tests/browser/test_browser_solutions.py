"""Every challenge solution run in a real JupyterLab, checked like the course notebooks (and, like them,
scheduled one by one under `--dist loadfile`: tests/conftest.py, SPREAD_PER_TEST)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from browser.course_files import REPO, course_notebooks
from browser.notebook_page import assert_works_in_jupyterlab

if TYPE_CHECKING:
    from browser.notebook_page import NotebookPage

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize(
    "path", [pytest.param(p, marks=pytest.mark.stored_outputs(p)) for p in course_notebooks("solutions")]
)
def test_solution_in_jupyterlab(open_notebook: Callable[[str], NotebookPage], path: str) -> None:
    """A challenge solution runs clean in JupyterLab, like the course notebooks."""
    assert_works_in_jupyterlab(open_notebook(path), stored=REPO / path)
