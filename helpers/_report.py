"""The one base of the report types: rows as data, a plain-text repr, an HTML table."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from helpers._table import html_report_table, text_table

__all__ = ["Report"]


class Report:
    """Rows (built lazily by `_build_rows` when a subclass defers them), indexing by name, reprs."""

    title = "report"
    columns: tuple[str, ...] = ()
    status_column: str | None = "status"

    def __init__(self, rows: Sequence[Any] | None = None) -> None:
        self._rows: list[Any] | None = None if rows is None else list(rows)

    def _build_rows(self) -> list[Any]:
        """The rows of a report that defers them; subclasses that pass rows never get here."""
        raise NotImplementedError

    @property
    def rows(self) -> list[Any]:
        """One row per parameter (built on first use when the report defers them)."""
        if self._rows is None:
            self._rows = self._build_rows()
        return self._rows

    def _cells(self, row: Any) -> list[Any]:
        return [getattr(row, c) for c in self.columns]

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
        return f"{self._heading()}\n" + text_table(self.columns, [self._cells(r) for r in self.rows])

    def _repr_html_(self) -> str:
        return html_report_table(
            self.columns,
            [self._cells(r) for r in self.rows],
            caption=self._heading(),
            status_column=self.status_column,
        )
