"""The last lesson's last link, clicked in JupyterLab, opens the first challenge notebook (no dialog)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from autograd_course.course import course_notebooks

if TYPE_CHECKING:
    from browser.notebook_page import NotebookPage

pytestmark = [pytest.mark.browser, pytest.mark.slow]

_CURRENT = "() => window.jupyterapp.shell.currentWidget?.context?.path ?? null"
LAST_LESSON = f"notebooks/{course_notebooks()[-1].name}"  # the course map's last lesson


def test_last_lesson_next_link_opens_the_challenge(open_notebook: Callable[[str], NotebookPage]) -> None:
    notebook = open_notebook(LAST_LESSON)
    page = notebook.page
    link = page.locator(".jp-RenderedMarkdown a", has_text="The TinyNet bug challenge").last
    link.scroll_into_view_if_needed()
    link.click()
    page.wait_for_function(f"() => ({_CURRENT})() !== '{LAST_LESSON}'", timeout=30_000)
    assert page.evaluate(_CURRENT) == "exercises/A_detached_output.ipynb"
    assert page.locator(".jp-Dialog").count() == 0, "JupyterLab showed a dialog instead of the notebook"
    notebook.lab.wait_for_kernel_idle()  # the challenge's kernel, before the teardown shuts it down
