"""Plain-text and HTML tables shared by every report (no ANSI codes, NaN always shown)."""

from __future__ import annotations

import html
from collections.abc import Sequence
from enum import Enum
from itertools import chain
from typing import Any

__all__ = [
    "STATUS_COLOURS",
    "fmt",
    "format_columns",
    "format_values",
    "formatted_html_table",
    "formatted_text_table",
    "html_report_table",
    "text_table",
]

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
    kind = type(value)
    if kind is float:
        return format(value, ".3e")  # nan, inf and -inf come out spelled like that
    if kind is str:
        return value
    if kind is bool or kind is int:
        return str(value)
    if value is None:
        return "-"
    if isinstance(value, float):
        return format(float(value), ".3e")
    if isinstance(value, Enum) and not isinstance(value, str):
        return str(value.name)
    if isinstance(value, tuple):
        return "(" + ", ".join(str(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return str(value)


Formatted = list[tuple[list[str], bool]]  # per column: its cells as text, and whether numeric


def _scalar(value: Any) -> bool:
    """A value compared with == as a plain Python value (not elementwise, like a tensor)."""
    return value is None or isinstance(value, (str, int, float, Enum))


def format_columns(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> Formatted:
    """Every cell as text (fmt), column by column, with whether the column is numeric."""
    return format_values([list(col) for col in zip(*rows)] if rows else [[] for _ in columns])


def format_values(by_column: Sequence[list[Any]]) -> Formatted:
    """format_columns of values given column by column.

    A column of one plain type is formatted in one sweep (a report of 2,000 parameters has
    12,000 cells); anything else cell by cell.
    """
    formatted = []
    for values in by_column:
        kinds = set(map(type, values))
        numeric = bool(values) and all(issubclass(k, (int, float)) and not issubclass(k, bool) for k in kinds)
        if len(kinds) == 1 and _scalar(values[0]) and values.count(values[0]) == len(values):
            cells = [fmt(values[0])] * len(values)  # one value all the way down: formatted once
        elif kinds <= {str}:
            cells = values
        elif kinds <= {float}:
            cells = ("%.3e\n" * len(values) % tuple(values)).split("\n")[:-1]  # one call per column
        elif kinds <= {bool, int}:
            cells = list(map(str, values))
        elif all(issubclass(k, Enum) and not issubclass(k, str) for k in kinds):
            cells = [v._name_ for v in values]
        else:
            cells = list(map(fmt, values))
        formatted.append((cells, numeric))
    return formatted


def text_table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Columns aligned with spaces; numbers right-aligned."""
    return formatted_text_table(columns, format_columns(columns, rows))


def _constant(cells: list[str]) -> bool:
    """Every cell of the column the same text (a column of zeros, of OK): written into the row
    template once instead of filled in on every row."""
    return bool(cells) and cells.count(cells[0]) == len(cells)


def _fill(template: str, rows: int, varying: list[list[str]]) -> str:
    """The row template repeated for every row, its %s fields filled from the varying columns."""
    return template * rows % tuple(chain.from_iterable(zip(*varying)))


def formatted_text_table(columns: Sequence[str], formatted: Formatted) -> str:
    """text_table of cells format_columns already made: one row template, filled in one call."""
    widths = [max([len(title), *map(len, cells)]) for title, (cells, _) in zip(columns, formatted)]
    align = [str.rjust if numeric else str.ljust for _, numeric in formatted]
    fields, varying = [], []
    for (cells, _), w, pad in zip(formatted, widths, align):
        if _constant(cells):
            fields.append(pad(cells[0], w).replace("%", "%%"))
        else:
            fields.append(f"%{w}s" if pad is str.rjust else f"%-{w}s")
            varying.append(cells)
    rows = len(formatted[0][0]) if formatted else 0
    head = "  ".join(pad(title, w) for title, w, pad in zip(columns, widths, align))
    text = head + "\n" + "  ".join("-" * w for w in widths) + _fill("\n" + "  ".join(fields), rows, varying)
    if formatted and formatted[-1][1]:
        return text  # a right-aligned last column leaves no space at the end of a line
    return "\n".join(map(str.rstrip, text.split("\n")))


_NON_FINITE_CELL = {
    t: f'<td style="background:#ffcdd2;font-weight:bold">{t}</td>' for t in ("nan", "inf", "-inf")
}
_STATUS_CELL = {t: f'<td style="background:{c}">{t}</td>' for t, c in STATUS_COLOURS.items()}


def html_report_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    caption: str = "",
    status_column: str | None = None,
) -> str:
    """An HTML table; the status column's cells are coloured by their value, NaN and Inf in red."""
    return formatted_html_table(columns, format_columns(columns, rows), caption, status_column)


def formatted_html_table(
    columns: Sequence[str],
    formatted: Formatted,
    caption: str = "",
    status_column: str | None = None,
    footer: str = "",
) -> str:
    """html_report_table of cells format_columns already made: one row template, filled in one call."""
    fields, varying = [], []
    for title, (cells, _) in zip(columns, formatted):
        if any(ch in "".join(cells) for ch in "&<>\"'"):
            cells = [html.escape(c) for c in cells]
        special = _STATUS_CELL | _NON_FINITE_CELL if title == status_column else _NON_FINITE_CELL
        if _constant(cells):
            fields.append((special.get(cells[0]) or "<td>" + cells[0] + "</td>").replace("%", "%%"))
        elif special.keys().isdisjoint(cells):
            fields.append("<td>%s</td>")  # every cell plain
            varying.append(cells)
        else:
            fields.append("%s")
            varying.append([special.get(c) or "<td>" + c + "</td>" for c in cells])
    rows = len(formatted[0][0]) if formatted else 0
    body = _fill("<tr>" + "".join(fields) + "</tr>", rows, varying)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    cap = f"<caption style='text-align:left'>{html.escape(caption)}</caption>" if caption else ""
    return (
        # max-width and overflow-wrap:anywhere let long names wrap, so a wide report shrinks to
        # the output area (1280 px JupyterLab, Colab) instead of being clipped behind a scrollbar.
        "<table class='autograd-report' style='max-width:100%;overflow-wrap:anywhere'>"
        + cap
        + f"<thead><tr>{head}</tr></thead><tbody>"
        + body
        + "</tbody>"
        + (
            f"<tfoot><tr><td colspan='{len(columns)}'>{html.escape(footer)}</td></tr></tfoot>"
            if footer
            else ""
        )
        + "</table>"
    )
