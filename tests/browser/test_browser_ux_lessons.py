"""Each lesson as a learner first sees it in JupyterLab, before running anything.

Opened and left alone, a lesson must not be marked modified (its stored kernel metadata is what Lab
writes), must show no raw widget text such as `VBox(children=...)` where no widget is live yet, and no
nbval markers (they are cell metadata tags, invisible to learners).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from browser.course_files import course_notebooks

if TYPE_CHECKING:
    from browser.notebook_page import NotebookPage

pytestmark = [pytest.mark.browser, pytest.mark.slow]

_STATE = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const text = panel.content.node.innerText;
  return { dirty: panel.context.model.dirty, text };
}"""
RAW_WIDGET = re.compile(r"\b(VBox|HBox|Box|interactive)\(children=")


def _state(page) -> dict:
    """The panel's state; asked again when a busy machine lets Chromium drop the first answer's promise."""
    for attempt in range(3):
        try:
            return page.evaluate(_STATE)
        except Exception as exc:  # playwright's Error: "Resulting promise was garbage collected"
            if "garbage collected" not in str(exc) or attempt == 2:
                raise
            page.wait_for_timeout(500)
    raise AssertionError("unreachable")


@pytest.mark.parametrize("path", course_notebooks("notebooks"))
def test_lesson_as_opened(open_notebook: Callable[[str], NotebookPage], path: str) -> None:
    """A lesson opened (kernel started, nothing run) is unmodified and shows no raw widget text or markers."""
    notebook = open_notebook(path)
    notebook.page.wait_for_timeout(1500)  # the kernel's info reply reaches the model after the kernel idles
    state = _state(notebook.page)
    problems = []
    if state["dirty"]:
        problems.append("JupyterLab marks the lesson modified as soon as it is opened")
    raw = RAW_WIDGET.search(state["text"])
    if raw:
        problems.append(f"raw widget text {state['text'][raw.start() : raw.start() + 60]!r}")
    if "NBVAL" in state["text"]:
        problems.append("an nbval marker is visible to learners")
    assert not problems, f"{path}: " + "; ".join(problems)
