"""The one base of the report types: rows as data, a plain-text repr, an HTML table."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from operator import attrgetter
from typing import Any

from helpers._table import Formatted, format_values, formatted_html_table, formatted_text_table

__all__ = ["Report"]


class Report:
    """Rows as data (`.rows`, one per parameter), indexing by name, a text and an HTML table.

    Like a pandas DataFrame, a report longer than `max_rows` shows part of itself: every notable
    row (a report says which; by default all of them, so nothing is left out) and the first quiet
    ones, in order, with a last line that counts the rest. `.rows` always holds every row; set
    `report.max_rows = None` to show them all.
    """

    title = "report"
    columns: tuple[str, ...] = ()
    status_column: str | None = "status"
    max_rows: int | None = 60  # pandas' display.max_rows
    quiet = "not notable"  # what every row a display leaves out is, in the last line's words

    def __init__(self, rows: Sequence[Any]) -> None:
        self.rows: list[Any] = list(rows)
        self._formatted: tuple[int | None, Formatted, str] | None = None  # made at the first display
        self._head: str | None = None  # the heading, made at the first display

    def _table(self) -> tuple[Formatted, str]:
        """The shown cells as text and the last line, made once (per max_rows) for both forms."""
        if self._formatted is None or self._formatted[0] != self.max_rows:
            shown = self._shown()
            left_out = len(self.rows) - len(shown)
            footer = f"... {left_out:,} more rows, each {self.quiet}: set .max_rows = None to show every row"
            self._formatted = (
                self.max_rows,
                format_values(self._cell_columns(shown)),
                footer if left_out else "",
            )
        return self._formatted[1], self._formatted[2]

    def _notable(self) -> list[bool]:
        """Which rows a display never leaves out: all of them, unless a report says otherwise."""
        return [True] * len(self.rows)

    def _shown(self) -> list[Any]:
        """Every row up to max_rows; past it, every notable row and as many quiet ones as fit."""
        limit = self.max_rows
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
            raise ValueError(f"expected max_rows to be None or a whole number >= 0, got {limit!r}")
        if limit is None or len(self.rows) <= limit:
            return self.rows
        notable = self._notable()
        room = limit - sum(notable)
        shown = []
        for row, keep in zip(self.rows, notable):
            if keep or room > 0:
                shown.append(row)
                room -= not keep
        return shown

    def _cell_columns(self, rows: list[Any]) -> list[list[Any]]:
        """Each column's values, in row order (the rows' attributes of the `columns` names)."""
        return [list(map(attrgetter(column), rows)) for column in self.columns]

    def _summary(self) -> str:
        return f"{len(self.rows)} parameters"

    def _heading(self) -> str:
        """The title and summary line, made once for the text and the HTML form alike."""
        if self._head is None:
            self._head = f"{self.title} ({self._summary()})"
        return self._head

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.rows)

    def __getitem__(self, name: str) -> Any:
        for row in self.rows:
            if row.name == name:
                return row
        raise KeyError(f"no parameter named {name!r}; have {[r.name for r in self.rows]}")

    def __repr__(self) -> str:
        cells, footer = self._table()
        return (
            f"{self._heading()}\n"
            + formatted_text_table(self.columns, cells)
            + (f"\n{footer}" if footer else "")
        )

    def _repr_html_(self) -> str:
        cells, footer = self._table()
        return formatted_html_table(self.columns, cells, self._heading(), self.status_column, footer)
