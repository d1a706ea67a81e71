"""Drive one notebook in JupyterLab with Playwright: open it, run it, list what a reader would see broken."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lab_server import LabServer
    from playwright.sync_api import ConsoleMessage, Error, Page

__all__ = [
    "IGNORED_CONSOLE_ERRORS",
    "CellView",
    "Interaction",
    "NotebookPage",
    "Problem",
    "problems_in",
]

# Console errors that say nothing about the course. JupyterLab 4.6 logs none while it opens and runs a
# healthy notebook here: the server runs with news and update checks off and a read-only extension
# manager, so nothing asks the network. Add a pattern only with the reason it is harmless.
IGNORED_CONSOLE_ERRORS: tuple[tuple[str, str], ...] = ()

_MERMAID_BLOCK = re.compile(r"^[ \t]*(```|~~~)[ \t]*mermaid[^\n]*\n(.*?)^[ \t]*\1", re.MULTILINE | re.DOTALL)
_IMAGE_MIMES = ("image/png", "image/jpeg", "image/gif", "image/svg+xml")
_WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
_WIDGET_ERROR = re.compile(
    r"Error displaying widget|Click to show javascript error|Failed to (?:load|create)"
)

# One snapshot of every cell: the model (source, execution count, outputs) through the app JupyterLab exposes
# with `expose_app_in_browser`, and what its DOM shows (errors render as plain stderr text in JupyterLab 4.6,
# so only the model tells an error output from a warning).
_READ_CELLS = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const text = (node) => (node ? node.innerText : "");
  return panel.content.widgets.map((cell) => {
    const model = cell.model;
    const outputs = model.type === "code" ? model.outputs.toJSON() : [];
    const children = model.type === "code"
      ? [...cell.outputArea.node.querySelectorAll(":scope > .jp-OutputArea-child")] : [];
    return {
      kind: model.type,
      source: model.sharedModel.getSource(),
      count: model.type === "code" ? model.executionCount : null,
      running: model.type === "code" && model.executionState === "running",
      outputs: outputs.map((o, i) => ({
        type: o.output_type,
        mimes: Object.keys(o.data || {}),
        markdown: String((o.data || {})["text/markdown"] || ""),
        error: o.output_type === "error" ? `${o.ename}: ${o.evalue}` : "",
        shown: text(children[i]).slice(0, 2000),
        live: !!(children[i] && children[i].querySelector(".jupyter-widgets, [class*='widget-']")),
      })),
      mermaid: [...cell.node.querySelectorAll(".jp-RenderedMermaid")].map((m) => ({
        ok: !m.classList.contains("jp-mod-warning")
          && !!m.querySelector("img[src^='data:image/svg+xml']"),
        text: text(m).slice(0, 500),
      })),
      images: [...cell.node.querySelectorAll(".jp-RenderedImage img")].map(
        (img) => img.complete && img.naturalWidth > 0),
      widgetErrors: [...cell.node.querySelectorAll(".jp-OutputArea-output")]
        .map(text).filter((t) => /Error displaying widget|Click to show javascript error/.test(t))
        .map((t) => t.slice(0, 300)),
    };
  });
}"""

_KERNEL_IDLE = """() => {
  const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const kernel = panel && panel.sessionContext && panel.sessionContext.session
    && panel.sessionContext.session.kernel;
  return !!kernel && kernel.status === "idle";
}"""

_FINISHED = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  const queued = (c) => /\\*/.test(c.node.querySelector(".jp-InputPrompt").innerText);
  const busy = panel.content.widgets.some(
    (c) => c.model.type === "code" && (c.model.executionState === "running" || queued(c)));
  return !!kernel && kernel.status === "idle" && !busy;
}"""

# The first slider, checkbox or toggle button (in the order `kinds` allows), tagged for Playwright, and the
# first widget Output after it: the output that control drives.
_FIND_CONTROL = """(kinds) => {
  const selectors = {
    slider: ".widget-slider .noUi-handle",
    checkbox: ".widget-checkbox input[type='checkbox']",
    toggle: "button.widget-toggle-button, .widget-toggle-buttons button",
  };
  const notebook = window.jupyterapp.shell.currentWidget.content.node;
  const found = kinds.flatMap((kind) =>
    [...notebook.querySelectorAll(selectors[kind])].map((node) => ({ kind, node })));
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


@dataclass(frozen=True)
class Problem:
    """One thing a reader would see broken: which check, which cell (0-based), what."""

    check: str
    cell: int | None
    message: str

    def __str__(self) -> str:
        where = f"cell {self.cell}" if self.cell is not None else "page"
        return f"[{self.check}] {where}: {self.message}"


@dataclass(frozen=True)
class CellView:
    """What one cell holds and shows after the run (a snapshot of `_READ_CELLS`)."""

    index: int
    kind: str
    source: str
    count: int | None
    running: bool
    outputs: list[dict[str, Any]]
    mermaid: list[dict[str, Any]]
    images: list[bool]
    widget_errors: list[str]

    def __repr__(self) -> str:
        return f"CellView({self.index}, {self.kind}, count={self.count}, outputs={len(self.outputs)})"

    def expected_mermaid(self) -> int:
        """How many distinct Mermaid diagrams this cell should draw (its Markdown, its outputs)."""
        texts = [self.source] if self.kind == "markdown" else []
        texts += [o["markdown"] for o in self.outputs]
        # JupyterLab caches a drawn diagram by its text, so identical diagrams may share one figure.
        diagrams = {" ".join(m.group(2).split()) for t in texts for m in _MERMAID_BLOCK.finditer(t)}
        return len(diagrams) + sum("text/vnd.mermaid" in o["mimes"] for o in self.outputs)


def problems_in(cells: list[CellView], console: list[str]) -> list[Problem]:
    """Every check on a finished run: errors, cells not run, Mermaid, widgets, plots, console errors."""
    found: list[Problem] = []
    for cell in cells:
        if cell.kind == "code" and cell.source.strip():
            if cell.running:
                found.append(Problem("not finished", cell.index, "still running"))
            elif cell.count is None:
                found.append(Problem("not run", cell.index, "the cell has no execution count"))
        for output in cell.outputs:
            if output["type"] == "error":
                shown = output["shown"].strip().splitlines()
                found.append(
                    Problem("cell error", cell.index, f"{output['error']} (shows {len(shown)} lines)")
                )
        for diagram in cell.mermaid:
            if not diagram["ok"]:
                found.append(
                    Problem("mermaid", cell.index, "not drawn: " + " ".join(diagram["text"].split()))
                )
        if len(cell.mermaid) < cell.expected_mermaid():
            found.append(
                Problem(
                    "mermaid", cell.index, f"{cell.expected_mermaid()} diagrams, {len(cell.mermaid)} rendered"
                )
            )
        for output in cell.outputs:
            if _WIDGET_MIME in output["mimes"]:
                if _WIDGET_ERROR.search(output["shown"]):
                    found.append(Problem("widget", cell.index, " ".join(output["shown"].split())[:200]))
                elif not output["live"]:
                    found.append(Problem("widget", cell.index, "no widget control rendered"))
        if not any(p.check == "widget" and p.cell == cell.index for p in found):
            # A broken view nested in a container, or one the model does not list as a widget output.
            found += [Problem("widget", cell.index, " ".join(m.split())[:200]) for m in cell.widget_errors]
        expected_images = sum(any(m in o["mimes"] for m in _IMAGE_MIMES) for o in cell.outputs)
        if sum(cell.images) < expected_images or not all(cell.images):
            found.append(
                Problem(
                    "plot",
                    cell.index,
                    f"{expected_images} images, {sum(cell.images)} drawn of {len(cell.images)}",
                )
            )
    found += [Problem("console", None, message) for message in console]
    return found


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


@dataclass
class NotebookPage:
    """One notebook opened in a fresh JupyterLab page, with the page's console errors collected."""

    page: Page
    server: LabServer
    path: str
    shots: Path
    console: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"NotebookPage({self.path!r}, console errors={len(self.console)})"

    def _on_console(self, message: ConsoleMessage) -> None:
        """Keep console errors that no IGNORED_CONSOLE_ERRORS pattern explains."""
        if message.type == "error" and not any(re.search(p, message.text) for p, _ in IGNORED_CONSOLE_ERRORS):
            self.console.append(
                message.text.strip().splitlines()[0][:300] if message.text.strip() else "(empty)"
            )

    def _on_page_error(self, error: Error) -> None:
        """Uncaught exceptions in the page are errors too."""
        self.console.append(f"uncaught {error.name}: {error.message}"[:300])

    def open(self, timeout: float = 90.0) -> NotebookPage:
        """Load JupyterLab on this notebook and wait until its kernel is idle."""
        self.page.on("console", self._on_console)
        self.page.on("pageerror", self._on_page_error)
        self.page.goto(self.server.lab_url(self.path), timeout=timeout * 1000)
        self.page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=timeout * 1000)
        self.page.wait_for_function(_KERNEL_IDLE, timeout=timeout * 1000)
        return self

    def _menu(self, menu: str, command: str) -> None:
        """Click a main-menu entry by its command id, as a reader would."""
        self.page.locator(".lm-MenuBar-item", has_text=re.compile(rf"^{menu}$")).click()
        self.page.locator(f".lm-Menu-item[data-command='{command}']").click()

    def run_all(self, timeout: float = 180.0) -> NotebookPage:
        """Run > Run All Cells, then wait until the kernel is idle and no cell is queued or running."""
        self._menu("Run", "runmenu:run-all")
        self.wait_until_finished(timeout)
        return self

    def run_every_cell(self, timeout: float = 180.0) -> NotebookPage:
        """Run all cells, and after each error go on from the next cell not run (Run All stops at errors)."""
        self.run_all(timeout)
        while True:
            index = next((c.index for c in self.cells() if c.kind == "code" and c.count is None), None)
            if index is None:
                return self
            self.page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".jp-InputPrompt").click()
            self._menu("Run", "notebook:run-all-below")
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
        raw = self.page.evaluate(_READ_CELLS)
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

    def problems(self, settle: float = 10.0) -> list[Problem]:
        """The checks' findings, giving diagrams, widgets and images up to `settle` s to finish drawing."""
        deadline = time.monotonic() + settle
        while True:
            found = problems_in(self.cells(), list(self.console))
            if not found or time.monotonic() > deadline:
                return found
            self.page.wait_for_timeout(500)

    def screenshot(self) -> Path:
        """A screenshot of the whole notebook (the viewport grown to its height), saved under `shots`."""
        height = self.page.evaluate(
            "() => { const n = document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer');"
            " return n ? n.scrollHeight : 0; }"
        )
        size = self.page.viewport_size or {"width": 1280, "height": 900}
        path = self.shots / (re.sub(r"[^A-Za-z0-9_.-]", "_", self.path) + ".png")
        self.shots.mkdir(parents=True, exist_ok=True)
        self.page.set_viewport_size(
            {"width": size["width"], "height": min(max(size["height"], height + 300), 16000)}
        )
        self.page.wait_for_timeout(300)
        self.page.screenshot(path=str(path), full_page=True)
        self.page.set_viewport_size(size)
        return path

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
            track = self.page.locator("[data-browser-test='control']").locator(
                "xpath=ancestor::*[contains(@class,'noUi-target')]"
            )
            track_box = track.bounding_box()
            assert box is not None and track_box is not None, "the slider has no size on screen"
            self.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            self.page.mouse.down()
            self.page.mouse.move(
                track_box["x"] + track_box["width"] * 0.9, box["y"] + box["height"] / 2, steps=5
            )
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
