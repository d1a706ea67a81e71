"""Drive one notebook in JupyterLab with Playwright: run it, check it, move its controls, screenshot it."""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stored_outputs import NBVAL_RULES, differences

from browser.notebook_checks import READ_CELLS, CellView, Problem, problems_in

if TYPE_CHECKING:
    from browser.lab_page import LabPage

__all__ = [
    "Interaction",
    "NotebookPage",
    "assert_as_opened",
    "assert_holds_stored_outputs",
    "assert_works_in_jupyterlab",
]

_FINISHED = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  const queued = (c) => /\\*/.test(c.node.querySelector(".jp-InputPrompt").innerText);
  const busy = panel.content.widgets.some(
    (c) => c.model.type === "code" && (c.model.executionState === "running" || queued(c)));
  return !!kernel && kernel.status === "idle" && !busy;
}"""

# The first slider, checkbox or toggle button of `kinds` in the notebook, tagged for Playwright, and the
# output it drives: the first widget Output after it (see the fallbacks below).
_FIND_CONTROL = """(kinds) => {
  const notebook = window.jupyterapp.shell.currentWidget.content.node;
  const all = (selector) => [...notebook.querySelectorAll(selector)];
  const controls = {
    slider: () => all(".widget-slider .noUi-handle"),
    checkbox: () => all(".widget-checkbox input[type='checkbox']"),
    // A ToggleButton flips on any click; in ToggleButtons only a button not already selected changes it.
    toggle: () => all("button.widget-toggle-button").filter(
      (b) => !(b.closest(".widget-toggle-buttons") && b.classList.contains("mod-active"))),
  };
  const found = kinds.flatMap((kind) => controls[kind]().map((node) => ({ kind, node })));
  if (!found.length) return null;
  found.sort((a, b) => a.node.compareDocumentPosition(b.node) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1);
  const { kind, node } = found[0];
  const after = (o) => node.compareDocumentPosition(o) & Node.DOCUMENT_POSITION_FOLLOWING;
  const cell = node.closest(".jp-Cell");
  // The Output widget after the control in its cell, else the next one in the notebook, else the cell's
  // own output area (read without the control itself, whose readout changes with it).
  const output = [...cell.querySelectorAll(".widget-output")].find(after)
    || [...notebook.querySelectorAll(".widget-output")].find(after)
    || cell.querySelector(".jp-Cell-outputArea");
  document.querySelectorAll("[data-browser-test]").forEach((n) => n.removeAttribute("data-browser-test"));
  node.setAttribute("data-browser-test", "control");
  node.closest(".jupyter-widgets").setAttribute("data-browser-test", "control-widget");
  output.setAttribute("data-browser-test", "output");
  return { kind };
}"""

_READ_OUTPUT = """() => {
  const output = document.querySelector("[data-browser-test='output']");
  if (!output) return "";
  const copy = output.cloneNode(true);
  copy.querySelectorAll("[data-browser-test='control-widget']").forEach((n) => n.remove());
  const images = [...copy.querySelectorAll("img")].map((img) => img.src).join("\\n");
  return copy.textContent.trim() + "\\n" + images;
}"""


@dataclass
class Interaction:
    """A control changed in the page and the output it drives, before and after."""

    kind: str
    before: str
    after: str

    def __repr__(self) -> str:
        return f"Interaction({self.kind}, changed={self.changed})"

    @property
    def changed(self) -> bool:
        """Whether the output shows something new (and not just nothing)."""
        return bool(self.after.strip()) and self.after != self.before


# Where screenshots of passing notebooks are kept for a person to look at (unset: none are taken).
SCREENSHOTS_ENV = "AUTOGRAD_COURSE_SCREENSHOTS"


class NotebookPage:
    """One notebook open in the worker's JupyterLab page, with the console errors logged since it opened."""

    def __init__(self, lab: LabPage, path: str, shots: Path) -> None:
        self.lab, self.page, self.path, self.shots = lab, lab.page, path, shots
        self._console_from = len(lab.console)

    def __repr__(self) -> str:
        return f"NotebookPage({self.path!r}, console errors={len(self.console)})"

    @property
    def console(self) -> list[str]:
        """Console errors logged since this notebook was opened."""
        return self.lab.console[self._console_from :]

    def open(self, timeout: float = 90.0) -> NotebookPage:
        """Open the notebook and wait until its kernel is idle."""
        self._console_from = len(self.lab.console)
        self.lab.open(self.path, timeout)
        return self

    def menu(self, menu: str, command: str) -> None:
        """Click a main-menu entry by its command id, as a reader would."""
        self.page.locator(".lm-MenuBar-item", has_text=re.compile(rf"^{menu}$")).click()
        self.page.locator(f".lm-Menu-item[data-command='{command}']").click()

    def run_all(self, timeout: float = 180.0) -> NotebookPage:
        """Run > Run All Cells, then wait until the kernel is idle and no cell is queued or running."""
        self.menu("Run", "runmenu:run-all")
        self.wait_until_finished(timeout)
        return self

    def run_every_cell(self, timeout: float = 180.0) -> NotebookPage:
        """Run all cells, and after each error go on from the next cell not run (Run All stops at errors)."""
        self.run_all(timeout)
        while True:
            not_run = (
                c.index for c in self.cells() if c.kind == "code" and c.source.strip() and c.count is None
            )
            index = next(not_run, None)
            if index is None:
                return self
            self.page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".jp-InputPrompt").click()
            self.menu("Run", "notebook:run-all-below")
            self.wait_until_finished(timeout)
            if self.cells()[index].count is None:
                raise AssertionError(f"cell {index} of {self.path} did not run")

    def wait_until_finished(self, timeout: float) -> None:
        """Wait for idle with no queued cell, twice in a row (the kernel idles between queued cells)."""
        deadline = time.monotonic() + timeout
        self.page.wait_for_timeout(300)
        for _ in range(2):
            left = max(deadline - time.monotonic(), 1.0)
            self.page.wait_for_function(_FINISHED, timeout=left * 1000, polling=200)
            self.page.wait_for_timeout(300)

    def cells(self) -> list[CellView]:
        """A snapshot of every cell's model and rendering."""
        raw = self.page.evaluate(READ_CELLS)
        return [
            CellView(
                i,
                c["kind"],
                c["source"],
                c["count"],
                c["running"],
                c["outputs"],
                c["mermaid"],
                c["images"],
                c["widgetErrors"],
            )
            for i, c in enumerate(raw)
        ]

    def model(self) -> dict:
        """The notebook as JupyterLab holds it now (what Save would write), as nbformat JSON."""
        return self.page.evaluate(_MODEL)

    def problems(self, settle: float = 10.0) -> list[Problem]:
        """The checks' findings, giving diagrams, widgets and images up to `settle` s to finish drawing."""
        deadline = time.monotonic() + settle
        while True:
            found = problems_in(self.cells(), self.console)
            if not found or time.monotonic() > deadline:
                return found
            self.page.wait_for_timeout(500)

    def screenshot(self, folder: Path | None = None) -> Path:
        """A screenshot of the whole notebook (the viewport grown to its height), saved under folder
        (`shots` by default)."""
        height = self.page.evaluate(
            "() => { const n = document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer');"
            " return n ? n.scrollHeight : 0; }"
        )
        size = self.page.viewport_size or {"width": 1280, "height": 900}
        folder = self.shots if folder is None else folder
        path = folder / (re.sub(r"[^A-Za-z0-9_.-]", "_", self.path) + ".png")
        folder.mkdir(parents=True, exist_ok=True)
        self.page.set_viewport_size(
            {"width": size["width"], "height": min(max(size["height"], height + 300), 16000)}
        )
        self.page.evaluate(
            "() => document.querySelectorAll('.jp-NotebookPanel .jp-WindowedPanel-outer')"
            ".forEach((n) => { n.scrollTop = 0; })"
        )
        self.page.wait_for_timeout(300)
        self.page.screenshot(path=str(path), full_page=True)
        self.page.set_viewport_size(size)
        return path

    def keep_screenshot(self) -> Path | None:
        """After a pass, a screenshot to look at, kept in the folder AUTOGRAD_COURSE_SCREENSHOTS names; none
        without it (CI): a full-page screenshot costs Chromium a second or two of CPU, and pytest's
        temporary folder would only throw it away. A failure's report always takes one."""
        folder = os.environ.get(SCREENSHOTS_ENV)
        if not folder:
            return None
        return self.screenshot(Path(folder))

    def report(self, problems: list[Problem]) -> str:
        """An assertion message: each problem on a line, then where the screenshot is."""
        lines = [f"{self.path}: {len(problems)} problem(s) in JupyterLab", *(f"  {p}" for p in problems)]
        return "\n".join([*lines, f"  screenshot: {self.screenshot()}"])

    def interact(
        self, kinds: tuple[str, ...] = ("slider", "checkbox", "toggle"), timeout: float = 30.0
    ) -> Interaction | None:
        """Change the first control of `kinds` and wait for the output after it to change; None if none."""
        found = self.page.evaluate(_FIND_CONTROL, list(kinds))
        if found is None:
            return None
        before = self.page.evaluate(_READ_OUTPUT)
        control = self.page.locator("[data-browser-test='control']")
        control.scroll_into_view_if_needed()
        if found["kind"] == "slider":
            box = control.bounding_box()
            track = control.locator("xpath=ancestor::*[contains(@class,'noUi-target')]")
            track_box = track.bounding_box()
            assert box is not None and track_box is not None, "the slider has no size on screen"
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            # Drag the handle to the far side of the track from where it is, as a reader would.
            far = 0.1 if x > track_box["x"] + track_box["width"] / 2 else 0.9
            self.page.mouse.move(x, y)
            self.page.mouse.down()
            self.page.mouse.move(track_box["x"] + track_box["width"] * far, y, steps=5)
            self.page.mouse.up()
        else:
            control.click()
        interaction = Interaction(found["kind"], before, before)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.page.wait_for_timeout(300)
            interaction.after = self.page.evaluate(_READ_OUTPUT)
            if interaction.changed:
                self.page.wait_for_timeout(300)
                interaction.after = self.page.evaluate(_READ_OUTPUT)
                if interaction.changed:
                    break
        return interaction


# The notebook as JupyterLab would save it (nbformat JSON), read from its model without saving.
_MODEL = "() => window.jupyterapp.shell.currentWidget.context.model.toJSON()"
# The kernel's info and spec replies reach the model (language_info, kernelspec) after the kernel idles:
# the panel awaits them from the moment the kernel connected, so awaiting them here, later, resumes after
# its updates have run; one more task lets anything they scheduled settle.
_AS_OPENED = """async () => {
  const panel = window.jupyterapp.shell.currentWidget;
  const kernel = panel.sessionContext.session.kernel;
  await kernel.info;
  await kernel.spec;
  await new Promise((resolve) => setTimeout(resolve, 100));
  const text = panel.content.node.innerText;
  return { dirty: panel.context.model.dirty, text };
}"""
_RAW_WIDGET = re.compile(r"\b(VBox|HBox|Box|interactive)\(children=")


def _as_opened_state(page: Any) -> dict:
    """The panel's state; asked again when a busy machine lets Chromium drop the first answer's promise."""
    for attempt in range(3):
        try:
            return page.evaluate(_AS_OPENED)
        except Exception as exc:  # playwright's Error: "Resulting promise was garbage collected"
            if "garbage collected" not in str(exc) or attempt == 2:
                raise
            page.wait_for_timeout(500)
    raise AssertionError("unreachable")


def assert_holds_stored_outputs(notebook: NotebookPage, stored: Path) -> None:
    """Strict nbval's verdict on the run just made (tests/stored_outputs.py), with nbval's own sanitizers."""
    found = differences(json.loads(stored.read_text()), notebook.model(), NBVAL_RULES)
    assert not found, f"{notebook.path}: strict nbval fails JupyterLab's run of it:\n" + "\n".join(
        f"  {d}" for d in found
    )


def assert_as_opened(notebook: NotebookPage) -> None:
    """Opened and left alone (kernel started, nothing run), a notebook is not marked modified (its stored
    kernel metadata is what Lab writes) and shows no raw widget text such as `VBox(children=...)` where no
    widget is live yet, and no nbval markers (cell metadata tags, invisible to learners)."""
    state = _as_opened_state(notebook.page)
    problems = []
    if state["dirty"]:
        problems.append("JupyterLab marks the notebook modified as soon as it is opened")
    raw = _RAW_WIDGET.search(state["text"])
    if raw:
        problems.append(f"raw widget text {state['text'][raw.start() : raw.start() + 60]!r}")
    if "NBVAL" in state["text"]:
        problems.append("an nbval marker is visible to learners")
    assert not problems, f"{notebook.path}: " + "; ".join(problems)


def assert_works_in_jupyterlab(notebook: NotebookPage, stored: Path | None = None) -> None:
    """Run all cells; assert nothing is broken; move the first control and assert its output follows.
    With `stored` (the committed notebook), the run's outputs must also pass strict nbval against it."""
    notebook.run_all()
    if stored is not None:
        assert_holds_stored_outputs(notebook, stored)
    problems = notebook.problems()
    assert not problems, notebook.report(problems)
    interaction = notebook.interact()
    if interaction is not None:
        assert interaction.changed, notebook.report([]) + (
            f"\n  moving the first {interaction.kind} did not change the output after it:"
            f" {interaction.before[:300]!r}"
        )
    notebook.keep_screenshot()
