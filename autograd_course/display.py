"""Display glue for lessons: widgets that read well where no kernel runs, small HTML tables."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["WIDGET_MIME", "HtmlTable", "html_table", "show_widget"]

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
_SHADE = " style=background:#c8e6c9"


def show_widget(widget: Any, summary: str) -> dict[str, Any]:
    """Display a widget whose stored plain-text form is `summary`, not its `VBox(children=...)` repr.

    A page without a kernel (GitHub, nbviewer, a lesson opened before Run All) shows the text; a live
    kernel shows the widget. The view names the model id in protocol 2, read by ipywidgets 7.7 and 8.x.
    """
    from IPython.display import display

    model_id = getattr(widget, "model_id", None)
    if not isinstance(model_id, str) or not model_id:
        raise ValueError(f"expected a live ipywidgets widget with a model_id, got {type(widget).__name__}")
    if not isinstance(summary, str) or not summary.strip():
        raise ValueError("expected a one-sentence summary of what the widget does")
    bundle = {
        WIDGET_MIME: {"version_major": 2, "version_minor": 0, "model_id": model_id},
        "text/plain": summary,
    }
    display(bundle, raw=True)
    return bundle


class HtmlTable:
    """Rows of a table: HTML in Jupyter (True cells shaded), aligned text elsewhere."""

    def __init__(self, rows: Sequence[Mapping[str, object]]) -> None:
        if not rows:
            raise ValueError("expected at least one row")
        self.rows = [dict(r) for r in rows]
        self.columns = list(self.rows[0])

    def __repr__(self) -> str:
        widths = {c: max(len(c), *(len(str(r.get(c, ""))) for r in self.rows)) for c in self.columns}
        lines = ["  ".join(c.ljust(widths[c]) for c in self.columns).rstrip()]
        lines += [
            "  ".join(str(r.get(c, "")).ljust(widths[c]) for c in self.columns).rstrip() for r in self.rows
        ]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.columns)
        body = "".join(
            "<tr>"
            + "".join(
                f"<td{_SHADE if r.get(c) is True else ''}>{html.escape(str(r.get(c, '')))}</td>"
                for c in self.columns
            )
            + "</tr>"
            for r in self.rows
        )
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def html_table(rows: Sequence[Mapping[str, object]]) -> HtmlTable:
    """A table of rows (dicts with the same keys) that renders as HTML in Jupyter and as text elsewhere."""
    return HtmlTable(rows)
