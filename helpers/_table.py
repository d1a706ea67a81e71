"""Plain-text and HTML tables shared by every report (no ANSI codes, NaN always shown)."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

__all__ = ["STATUS_COLOURS", "fmt", "html_report_table", "text_table"]

# Background colours for status cells in HTML; the plain-text form shows the word alone.
STATUS_COLOURS = {
    "OK": "#c8e6c9",
    "ZERO_GRAD": "#fff9c4",
    "NOT_IN_OPTIMIZER": "#ffe0b2",
    "NO_GRAD": "#ffe0b2",
    "FROZEN": "#e1f5fe",
    "UNREGISTERED": "#ffe0b2",
    "NON_FINITE_GRAD": "#ffcdd2",
    "non-finite": "#ffcdd2",
    "large": "#ffe0b2",
    "changed": "#c8e6c9",
    "unchanged": "#ffcdd2",
}


def fmt(value: Any) -> str:
    """One cell as text: floats in 3-digit scientific form, NaN and Inf spelled out."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return f"{value:.3e}"
    if hasattr(value, "name") and hasattr(value, "value") and not isinstance(value, str):
        return str(value.name)  # an Enum member
    if isinstance(value, tuple):
        return "(" + ", ".join(str(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return str(value)


def text_table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Columns aligned with spaces; numbers right-aligned."""
    cells = [[fmt(v) for v in row] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    numeric = [
        bool(rows) and all(isinstance(r[i], (int, float)) and not isinstance(r[i], bool) for r in rows)
        for i in range(len(columns))
    ]

    def line(values: Sequence[str]) -> str:
        parts = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)]
        return "  ".join(parts).rstrip()

    return "\n".join([line(columns), line(["-" * w for w in widths])] + [line(r) for r in cells])


def html_report_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    caption: str = "",
    status_column: str | None = None,
) -> str:
    """An HTML table; the status column's cells are coloured by their value."""
    status_index = list(columns).index(status_column) if status_column in columns else -1
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = []
    for row in rows:
        tds = []
        for i, value in enumerate(row):
            text = html.escape(fmt(value))
            colour = STATUS_COLOURS.get(text) if i == status_index else None
            style = f' style="background:{colour}"' if colour else ""
            if text in ("nan", "inf", "-inf"):
                style = ' style="background:#ffcdd2;font-weight:bold"'
            tds.append(f"<td{style}>{text}</td>")
        body.append("<tr>" + "".join(tds) + "</tr>")
    cap = f"<caption style='text-align:left'>{html.escape(caption)}</caption>" if caption else ""
    return (
        # max-width and overflow-wrap:anywhere let long names wrap, so a wide report shrinks to
        # the output area (1280 px JupyterLab, Colab) instead of being clipped behind a scrollbar.
        "<table class='autograd-report' style='max-width:100%;overflow-wrap:anywhere'>"
        + cap
        + f"<thead><tr>{head}</tr></thead><tbody>"
        + "".join(body)
        + "</tbody></table>"
    )
