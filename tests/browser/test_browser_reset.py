"""`autograd-course reset 04` while lesson 04 is open in JupyterLab: what the learner is told and sees.

The learner answered 04.1 and saved; `reset` restores the lesson on disk while the tab still holds the
old copy. Reset names the server that has it open and says to reload from disk: File > Reload Notebook
from Disk shows the reset lesson, and saving it then keeps the reset. Saved without reloading, the tab
asks "File Changed" with Overwrite focused (Enter would write the old answer back); Revert, as reset
says, keeps the reset.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from browser.lab_server import LabServer
    from browser.notebook_page import NotebookPage

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSON = "lessons/04_inplace_operations.ipynb"
ANSWER = "predicted_version = 2  # my own answer"

_ANSWER_CELL = """(activity) => {
  const cells = window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells;
  return cells.findIndex((c) => {
    const meta = c.getMetadata("autograd_course") || {};
    return meta.yourturn === activity && meta.role === "answer";
  });
}"""
_SOURCE = "(i) => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells[i].getSource()"
_SET_SOURCE = """([i, text]) => {
  window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells[i].setSource(text);
}"""
_DIRTY = "() => window.jupyterapp.shell.currentWidget.context.model.dirty"


def _cli(server: LabServer, *args: str) -> subprocess.CompletedProcess[str]:
    """autograd-course run from the server's root, seeing the server as a learner's shell would."""
    command = [sys.executable, "-m", "autograd_course", *args]
    return subprocess.run(
        command, cwd=server.root, env=server.environment(), capture_output=True, text=True, timeout=60
    )


def _answer_on_disk(path: Path, index: int) -> str:
    return "".join(json.loads(path.read_text(encoding="utf-8"))["cells"][index]["source"])


def _save(notebook: NotebookPage) -> None:
    """Ctrl+S in the notebook, as a learner saves."""
    notebook.page.locator(".jp-NotebookPanel .jp-Notebook").first.click(position={"x": 5, "y": 5})
    notebook.page.keyboard.press("Control+s")


def _answer_and_save(notebook: NotebookPage, index: int, on_disk: Path) -> None:
    """The learner types an answer into the cell and saves it."""
    notebook.page.evaluate(_SET_SOURCE, [index, ANSWER])
    _save(notebook)
    notebook.page.wait_for_function(f"() => !({_DIRTY})()", timeout=10_000)
    assert _answer_on_disk(on_disk, index) == ANSWER


def _reset(server: LabServer, workspace: str) -> str:
    """`autograd-course reset 04`: what it printed, on one line."""
    done = _cli(server, "reset", "04", "--dir", workspace)
    assert done.returncode == 0, done.stderr
    return " ".join(done.stdout.split())


def _shows_the_reset(notebook: NotebookPage, index: int, stub: str) -> None:
    """The tab now holds the restored lesson: the answer cell is the stub again."""
    notebook.page.wait_for_function(f"() => ({_SOURCE})({index}) === {json.dumps(stub)}", timeout=10_000)


def test_reset_while_the_lesson_is_open(
    lab_server: LabServer, open_notebook: Callable[[str], NotebookPage], tmp_path: Path
) -> None:
    workspace = f"reset-{tmp_path.name}"
    assert _cli(lab_server, "start", workspace).returncode == 0
    on_disk = lab_server.root / workspace / LESSON
    notebook = open_notebook(f"{workspace}/{LESSON}")
    page = notebook.page
    index = page.evaluate(_ANSWER_CELL, "04.1")
    assert index >= 0, "no answer cell for 04.1"
    stub = page.evaluate(_SOURCE, index)

    # Told to reload: File > Reload Notebook from Disk shows the reset, and saving then keeps it.
    _answer_and_save(notebook, index, on_disk)
    told = _reset(lab_server, workspace)
    assert f"is open in JupyterLab ({lab_server.url}/)" in told, told
    assert "File > Reload Notebook from Disk" in told and "click Revert" in told, told
    assert "Do not press Enter" in told, told
    assert _answer_on_disk(on_disk, index) == stub
    notebook.menu("File", "docmanager:reload")
    _shows_the_reset(notebook, index, stub)
    _save(notebook)
    page.wait_for_timeout(1000)
    assert page.locator(".jp-Dialog").count() == 0, "saving the reloaded lesson still asks"
    assert _answer_on_disk(on_disk, index) == stub

    # Saved without reloading: JupyterLab asks, Enter would overwrite, Revert (as reset says) keeps the reset.
    _answer_and_save(notebook, index, on_disk)
    _reset(lab_server, workspace)
    _save(notebook)
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for(timeout=10_000)
    assert "File Changed" in dialog.inner_text()
    focused = page.evaluate("() => document.activeElement.innerText.trim()")
    assert focused == "Overwrite", f"the button Enter presses is {focused!r}, not what reset warns of"
    dialog.get_by_role("button", name="Revert").click()
    _shows_the_reset(notebook, index, stub)
    assert _answer_on_disk(on_disk, index) == stub, "Revert wrote the old answer back"
