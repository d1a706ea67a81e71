"""What the setup cell does after installing the course on Colab or Kaggle (never run locally).

- GPU: when torch sees one, the notebook's `device = "cpu"` parameter becomes "cuda" right after
  the parameters cell runs (the setup cell runs first, so it cannot simply assign it).
- Widgets: Colab draws ipywidgets 7 itself; ipywidgets 8 needs Colab's custom widget manager.
- Mermaid: Colab's Markdown does not draw ```mermaid blocks, so their diagrams are drawn here,
  in this cell's output, with mermaid.js from its CDN.
- Files: none to fetch; lessons, exercises and solutions ship inside the installed package.
"""

from __future__ import annotations

import html
import json
import os
import re
import sys
from typing import Any

from autograd_course.course import course_root

__all__ = ["MERMAID_CDN", "mermaid_blocks", "on_colab", "prepare"]

MERMAID_CDN = "https://cdn.jsdelivr.net/npm/mermaid@11/dist/mermaid.esm.min.mjs"
_FENCE = re.compile(r"^```mermaid[ \t]*\n(.*?)^```", re.M | re.S)


def on_colab() -> bool:
    """Colab, detected as its docs say: the google.colab module is loaded (or its release tag is set)."""
    return "google.colab" in sys.modules or "COLAB_RELEASE_TAG" in os.environ


def mermaid_blocks(notebook: str) -> list[str]:
    """The Mermaid diagrams in the Markdown cells of a course notebook (path relative to the course)."""
    path = course_root() / notebook
    if not path.is_file():
        return []
    cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    text = ["".join(c.get("source", "")) for c in cells if c.get("cell_type") == "markdown"]
    return [m.group(1) for t in text for m in _FENCE.finditer(t)]


def _use_gpu(ip: Any) -> None:
    """Once a cell leaves device == "cpu" in the namespace (the parameters cell), make it "cuda"."""

    def switch(result: Any) -> None:
        if ip.user_ns.get("device") == "cpu":
            ip.user_ns["device"] = "cuda"
            print('GPU found: device = "cuda" (set it back to "cpu" in the parameters cell to compare).')
            ip.events.unregister("post_run_cell", switch)

    ip.events.register("post_run_cell", switch)


def _draw_mermaid(blocks: list[str]) -> None:
    from IPython.display import HTML, display

    divs = "".join(f'<pre class="mermaid">{html.escape(b)}</pre>' for b in blocks)
    script = f'<script type="module">import m from "{MERMAID_CDN}"; m.run();</script>'
    note = "<p>Colab does not draw Mermaid in text cells; this notebook's diagrams, in order:</p>"
    display(HTML(note + divs + script))


def prepare(notebook: str) -> None:
    """Set up the hosted kernel for one course notebook: GPU, widgets, diagrams."""
    import torch
    from IPython import get_ipython

    ip = get_ipython()
    if ip is not None and torch.cuda.is_available():
        _use_gpu(ip)
    if on_colab():
        import ipywidgets

        if int(ipywidgets.__version__.split(".")[0]) >= 8:
            from google.colab import output

            output.enable_custom_widget_manager()
        blocks = mermaid_blocks(notebook)
        if blocks:
            _draw_mermaid(blocks)
    print(f"Course ready ({notebook}); run the cells below in order.")
