"""Every course notebook in a real JupyterLab, as a learner meets it: first opened and left alone (not
marked modified, no raw widget text, no nbval markers), then run: no errors, everything drawn, widgets
live. One page and one kernel serve both looks.

Under `--dist loadfile` each notebook is scheduled on its own (tests/conftest.py: SPREAD_PER_TEST), so
the workers share the notebooks as they finish them instead of taking fixed halves.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from browser.course_files import FIXTURES, REPO, course_notebooks
from browser.notebook_page import assert_as_opened, assert_works_in_jupyterlab

if TYPE_CHECKING:
    from browser.lab_server import LabServer
    from browser.notebook_page import NotebookPage

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize(
    "path", [pytest.param(p, marks=pytest.mark.stored_outputs(p)) for p in course_notebooks("notebooks")]
)
def test_course_notebook_runs_clean_in_jupyterlab(
    open_notebook: Callable[[str], NotebookPage], path: str
) -> None:
    """A course notebook is as stored when a reader opens it in JupyterLab, and works when all cells run."""
    notebook = open_notebook(path)
    assert_as_opened(notebook)
    assert_works_in_jupyterlab(notebook, stored=REPO / path)


def test_a_notebook_that_lab_rewrites_on_opening_is_caught(
    open_notebook: Callable[[str], NotebookPage], lab_server: LabServer
) -> None:
    """The as-opened check sees what the kernel's info reply writes: stored language_info of another
    Python is rewritten once the kernel answers, and that marks the notebook modified."""
    nb = json.loads((FIXTURES / "healthy.ipynb").read_text())
    nb["metadata"]["language_info"] = {"name": "python", "version": "3.0.0", "mimetype": "text/x-python"}
    (lab_server.root / "fixtures" / "stale_language_info.ipynb").write_text(json.dumps(nb))
    notebook = open_notebook("fixtures/stale_language_info.ipynb")
    with pytest.raises(AssertionError, match="marks the notebook modified as soon as it is opened"):
        assert_as_opened(notebook)
