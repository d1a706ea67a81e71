"""The one base of the report types: rows as data, a plain-text repr, an HTML table."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from operator import attrgetter
from typing import Any

from helpers._table import Formatted, format_columns, formatted_html_table, formatted_text_table

__all__ = ["Report"]


class Report:
    """Rows as data (`.rows`, one per parameter), indexing by name, a text and an HTML table."""

    title = "report"
    columns: tuple[str, ...] = ()
    status_column: str | None = "status"

    def __init__(self, rows: Sequence[Any]) -> None:
        self.rows: list[Any] = list(rows)
        self._formatted: Formatted | None = None  # the cells as text, made at the first display

    def _table(self) -> Formatted:
        """The cells as text, made once for the text and the HTML form alike."""
        if self._formatted is None:
            self._formatted = format_columns(self.columns, self._cell_rows())
        return self._formatted

    def _cell_rows(self) -> list[Sequence[Any]]:
        """Each row's values in the order of `columns` (the rows' attributes of those names)."""
        return list(map(attrgetter(*self.columns), self.rows))

    def _summary(self) -> str:
        return f"{len(self.rows)} parameters"

    def _heading(self) -> str:
        return f"{self.title} ({self._summary()})"

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
        return f"{self._heading()}\n" + formatted_text_table(self.columns, self._table())

    def _repr_html_(self) -> str:
        return formatted_html_table(self.columns, self._table(), self._heading(), self.status_column)
