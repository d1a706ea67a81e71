"""The browser checks: what a reader would see broken in a notebook JupyterLab has run."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["READ_CELLS", "CellView", "Problem", "problems_in"]

_MERMAID_BLOCK = re.compile(r"^[ \t]*(```|~~~)[ \t]*mermaid[^\n]*\n(.*?)^[ \t]*\1", re.MULTILINE | re.DOTALL)
_IMAGE_MIMES = ("image/png", "image/jpeg", "image/gif", "image/svg+xml")
_WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
_WIDGET_ERROR = re.compile(
    r"Error displaying widget|Click to show javascript error|Failed to (?:load|create)"
)

# One snapshot of every cell: the model (source, execution count, outputs) through the app JupyterLab exposes
# with `expose_app_in_browser`, and what its DOM shows (errors render as plain stderr text in JupyterLab 4.6,
# so only the model tells an error output from a warning).
READ_CELLS = """() => {
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
    """What one cell holds and shows after the run (a snapshot of `READ_CELLS`)."""

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
