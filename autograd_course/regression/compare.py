"""Drift between two finished runs: changed cell outputs, changed statuses, changed durations."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from autograd_course.regression.report import RunReport, load_report
from autograd_course.regression.sanitize import Sanitizer

__all__ = ["CellChange", "NotebookDrift", "RunComparison", "cell_text_outputs", "compare_runs"]

_SKIP_MARKERS = ("# NBVAL_IGNORE_OUTPUT", "# NBVAL_SKIP")
_PAPERMILL_TAGS = {"papermill-error-cell-tag", "injected-parameters"}


def cell_text_outputs(cell: Any) -> str:
    """A code cell's outputs as text: streams, text/plain results, and errors as `Name: message`.

    Consecutive chunks of one stream are joined first (as nbval does): how the kernel split
    its stdout into messages varies from run to run and means nothing.
    """
    parts: list[tuple[str, str]] = []  # (kind, text); kind is a stream name or "" for the rest
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            name, text = out.get("name", "stream"), "".join(out.get("text", ""))
            if parts and parts[-1][0] == name:
                parts[-1] = (name, parts[-1][1] + text)
            else:
                parts.append((name, text))
        elif kind in ("execute_result", "display_data"):
            text = out.get("data", {}).get("text/plain")
            if text is not None:
                parts.append(("", "".join(text)))
        elif kind == "error":
            parts.append(("", f"{out.get('ename')}: {out.get('evalue')}"))
    return "\n".join((f"[{kind}] " if kind else "") + text.rstrip("\n") for kind, text in parts)


def _code_cells(path: Path) -> list[tuple[int, str, Any]]:
    """(index in the source notebook, key, cell) for every code cell of an executed notebook."""
    nb = nbformat.read(path, as_version=4)
    # Index as in the source notebook: without papermill's error banners and injected-parameters cell.
    cells = [c for c in nb.cells if not _PAPERMILL_TAGS & set(c.get("metadata", {}).get("tags", []))]
    return [(i, c.get("id") or f"#{i}", c) for i, c in enumerate(cells) if c.cell_type == "code"]


@dataclass
class CellChange:
    """One code cell whose sanitised text output differs between the runs."""

    index: int
    before: str
    after: str

    def __repr__(self) -> str:
        return f"CellChange(cell {self.index})"

    def diff(self) -> str:
        """A unified diff of the sanitised outputs."""
        lines = difflib.unified_diff(
            self.before.splitlines(), self.after.splitlines(), "run A", "run B", lineterm="", n=1
        )
        return "\n".join(lines)


@dataclass
class NotebookDrift:
    """What changed for one notebook between run A and run B."""

    path: str
    status_a: str | None
    status_b: str | None
    duration_a: float | None
    duration_b: float | None
    cells: list[CellChange] = field(default_factory=list)

    def __repr__(self) -> str:
        return (
            f"NotebookDrift({self.path}: {self.status_a}->{self.status_b}, {len(self.cells)} cells changed)"
        )

    @property
    def status_changed(self) -> bool:
        """True when the notebook ended differently (or ran in only one of the runs)."""
        return self.status_a != self.status_b


@dataclass
class RunComparison:
    """Run A against run B, notebook by notebook in A's order, then notebooks only in B."""

    run_a: str
    run_b: str
    report_a: RunReport
    report_b: RunReport
    notebooks: list[NotebookDrift]

    def __repr__(self) -> str:
        changed = sum(bool(d.cells) or d.status_changed for d in self.notebooks)
        return f"RunComparison({self.run_a} vs {self.run_b}: {changed} of {len(self.notebooks)} changed)"

    def to_markdown(self) -> str:
        """The comparison as Markdown: environment, statuses and durations, then output diffs."""
        a, b = self.report_a, self.report_b
        lines = [
            f"# Run comparison: A `{self.run_a}` vs B `{self.run_b}`",
            "",
            "| | A | B |",
            "|---|---|---|",
            f"| torch | {a.torch_version} | {b.torch_version} |",
            f"| Python | {a.python_version} | {b.python_version} |",
            f"| device | {a.device} | {b.device} |",
            f"| parameters | {_params(a)} | {_params(b)} |",
            f"| total duration (s) | {a.duration_s:.1f} | {b.duration_s:.1f} |",
            "",
            "## Notebooks",
            "",
            "| notebook | status A | status B | duration A (s) | duration B (s) | change | cells changed |",
            "|---|---|---|---:|---:|---:|---:|",
        ]
        for d in self.notebooks:
            status_b = f"**{d.status_b or 'absent'}**" if d.status_changed else d.status_b
            lines.append(
                f"| {d.path} | {d.status_a or 'absent'} | {status_b} | {_num(d.duration_a)} | "
                f"{_num(d.duration_b)} | {_change(d.duration_a, d.duration_b)} | {len(d.cells)} |"
            )
        changed_status = [d for d in self.notebooks if d.status_changed]
        lines += ["", "## Status changes", ""]
        lines += [f"- {d.path}: {d.status_a or 'absent'} → {d.status_b or 'absent'}" for d in changed_status]
        if not changed_status:
            lines.append("None.")
        lines += ["", "## Changed outputs", ""]
        drifted = [d for d in self.notebooks if d.cells]
        if not drifted:
            lines.append("No cell's text output changed (after sanitising).")
        for d in drifted:
            lines += [f"### {d.path}", ""]
            for change in d.cells:
                lines += [f"Cell {change.index}:", "", "```diff", change.diff(), "```", ""]
        return "\n".join(lines).rstrip("\n") + "\n"


def _params(report: RunReport) -> str:
    return ", ".join(f"`{k}={v}`" for k, v in report.parameters.items()) or "defaults"


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def _change(a: float | None, b: float | None) -> str:
    if a is None or b is None:
        return ""
    pct = f" ({(b - a) / a:+.0%})" if a > 0 else ""
    return f"{b - a:+.1f} s{pct}"


def _cell_changes(path_a: Path, path_b: Path, sanitize: Sanitizer) -> list[CellChange]:
    if not path_a.is_file() or not path_b.is_file():
        return []
    cells_b = {key: cell for _, key, cell in _code_cells(path_b)}
    changes = []
    for index, key, cell_a in _code_cells(path_a):
        if key not in cells_b or cell_a.source.lstrip().startswith(_SKIP_MARKERS):
            continue
        before = sanitize(cell_text_outputs(cell_a))
        after = sanitize(cell_text_outputs(cells_b[key]))
        if before != after:
            changes.append(CellChange(index, before, after))
    return changes


def compare_runs(run_a: Path, run_b: Path, sanitize: Sanitizer | None = None) -> RunComparison:
    """Compare two finished run folders (each holding report.json and the executed notebooks)."""
    sanitize = sanitize or Sanitizer.from_file()
    report_a, report_b = load_report(run_a), load_report(run_b)
    by_path_a = {r.path: r for r in report_a.results}
    by_path_b = {r.path: r for r in report_b.results}
    paths = list(by_path_a) + [p for p in by_path_b if p not in by_path_a]
    drift = []
    for path in paths:
        ra, rb = by_path_a.get(path), by_path_b.get(path)
        cells = []
        if ra is not None and rb is not None:
            cells = _cell_changes(Path(run_a) / ra.output, Path(run_b) / rb.output, sanitize)
        drift.append(
            NotebookDrift(
                path,
                ra.status if ra else None,
                rb.status if rb else None,
                ra.duration_s if ra else None,
                rb.duration_s if rb else None,
                cells,
            )
        )
    return RunComparison(str(run_a), str(run_b), report_a, report_b, drift)
