"""Drift between two finished runs: changed statuses, changed cell outputs, durations beyond the noise."""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from autograd_instructor.regression.durations import DurationCheck, check_durations
from autograd_instructor.regression.report import (
    ENVIRONMENT_LABELS,
    SHARED_MACHINE_NOTE,
    RunReport,
    load_report,
)
from autograd_instructor.regression.sanitize import Sanitizer

__all__ = [
    "CELL_NUMBERING",
    "CHANGE_KINDS",
    "CellChange",
    "NotebookDrift",
    "RunComparison",
    "cell_text_outputs",
    "compare_runs",
    "parse_change_kinds",
]

CHANGE_KINDS = ("status", "output", "duration", "stall")
COMPARISON_VERSION = 1
CELL_NUMBERING = (
    "cell N is the Nth code cell from 0, as nbval names it (`notebook.ipynb::Cell N`); "
    "markdown cells are not counted. `In [n]` is the execution count stored in run A."
)
_SKIP_MARKERS = ("# NBVAL_IGNORE_OUTPUT", "# NBVAL_SKIP")
_SKIP_TAGS = {"nbval-ignore-output", "nbval-skip"}
_PAPERMILL_TAGS = {"papermill-error-cell-tag", "injected-parameters"}
_HEAD, _TAIL, _LINE_CHARS = 3, 3, 100  # a cell's first lines (imports, setup) and last (what it prints)


def parse_change_kinds(text: str) -> tuple[str, ...]:
    """`status,output` -> ("status", "output"); an unknown kind is a clear error."""
    kinds = tuple(k.strip() for k in text.split(",") if k.strip())
    unknown = [k for k in kinds if k not in CHANGE_KINDS]
    if unknown or not kinds:
        raise ValueError(f"--fail-on takes a comma-separated list of {', '.join(CHANGE_KINDS)}; got {text!r}")
    return tuple(dict.fromkeys(kinds))


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


def trim_source(source: str) -> str:
    """A cell's source, its middle left out when long, each line cut to a readable width."""
    lines = source.rstrip().splitlines()
    shown = [line if len(line) <= _LINE_CHARS else line[: _LINE_CHARS - 1] + "…" for line in lines]
    if len(shown) > _HEAD + _TAIL + 1:
        left_out = len(shown) - _HEAD - _TAIL
        shown = [*shown[:_HEAD], f"# … {left_out} more lines", *shown[-_TAIL:]]
    return "\n".join(shown)


def _code_cells(path: Path) -> list[tuple[int, str, Any]]:
    """(nbval number, key, cell) for every code cell of an executed notebook, as in its source."""
    nb = nbformat.read(path, as_version=4)
    # Number as in the source notebook: without papermill's error banners and injected-parameters cell.
    cells = [c for c in nb.cells if not _PAPERMILL_TAGS & set(c.get("metadata", {}).get("tags", []))]
    code = [c for c in cells if c.cell_type == "code"]
    return [(n, c.get("id") or f"#{n}", c) for n, c in enumerate(code)]


def _skipped(cell: Any) -> bool:
    tags = set(cell.get("metadata", {}).get("tags", []))
    return cell.source.lstrip().startswith(_SKIP_MARKERS) or bool(_SKIP_TAGS & tags)


def _ran(cell: Any) -> bool:
    return cell.get("execution_count") is not None or bool(cell.get("outputs"))


@dataclass
class CellChange:
    """One code cell whose sanitised text output differs between the runs."""

    cell: int
    execution_count: int | None
    source: str
    before: str
    after: str
    source_b: str | None = None  # run B's source, when it differs from run A's (an edited copy)

    def __repr__(self) -> str:
        return f"CellChange(cell {self.cell})"

    def diff(self) -> str:
        """A unified diff of the sanitised outputs, run A then run B."""
        lines = difflib.unified_diff(
            self.before.splitlines(), self.after.splitlines(), "run A", "run B", lineterm="", n=1
        )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The change as JSON-ready data."""
        return {
            "cell": self.cell,
            "execution_count": self.execution_count,
            "source": self.source,
            "source_b": self.source_b,
            "before": self.before,
            "after": self.after,
            "diff": self.diff(),
        }


@dataclass
class NotebookDrift:
    """What changed for one notebook that both runs ran."""

    path: str
    status_a: str
    status_b: str
    duration_a: float
    duration_b: float
    cells: list[CellChange] = field(default_factory=list)
    not_run_a: list[int] = field(default_factory=list)
    not_run_b: list[int] = field(default_factory=list)
    code_cell_a: int | None = None
    code_cell_b: int | None = None
    duration_changed: bool = False

    def __repr__(self) -> str:
        return (
            f"NotebookDrift({self.path}: {self.status_a}->{self.status_b}, {len(self.cells)} cells changed)"
        )

    @property
    def status_changed(self) -> bool:
        """True when the notebook ended differently, or failed at another cell."""
        return (self.status_a, self.code_cell_a) != (self.status_b, self.code_cell_b)

    def to_dict(self) -> dict[str, Any]:
        """The notebook's drift as JSON-ready data."""
        return {
            "path": self.path,
            "status": {"a": self.status_a, "b": self.status_b, "changed": self.status_changed},
            "failed_cell": {"a": self.code_cell_a, "b": self.code_cell_b},
            "duration_s": {"a": self.duration_a, "b": self.duration_b, "changed": self.duration_changed},
            "cells_not_run": {"a": self.not_run_a, "b": self.not_run_b},
            "changed_cells": [c.to_dict() for c in self.cells],
        }


@dataclass
class RunComparison:
    """Run A against run B: notebooks both ran (in A's order), what only one ran, and duration drift."""

    run_a: str
    run_b: str
    report_a: RunReport
    report_b: RunReport
    notebooks: list[NotebookDrift]
    only_in_a: list[str] = field(default_factory=list)
    only_in_b: list[str] = field(default_factory=list)
    durations: DurationCheck | None = None

    def __repr__(self) -> str:
        changed = sum(bool(d.cells) or d.status_changed for d in self.notebooks)
        return f"RunComparison({self.run_a} vs {self.run_b}: {changed} of {len(self.notebooks)} changed)"

    def changes(self) -> dict[str, list[str]]:
        """For each kind of change, the notebooks that show it."""
        return {
            "status": [d.path for d in self.notebooks if d.status_changed],
            "output": [d.path for d in self.notebooks if d.cells],
            "duration": [d.path for d in self.notebooks if d.duration_changed],
            # a stall in either run, changed or not: a stalled run proves nothing about its notebook
            "stall": [d.path for d in self.notebooks if "stall" in (d.status_a, d.status_b)],
        }

    def fails(self, kinds: tuple[str, ...]) -> bool:
        """True when a change of one of `kinds` was found (what --fail-on gates on)."""
        found = self.changes()
        return any(found[kind] for kind in kinds)

    def to_dict(self, fail_on: tuple[str, ...] = ()) -> dict[str, Any]:
        """The comparison as JSON-ready data (what --json prints)."""
        changes = self.changes()
        return {
            "comparison_version": COMPARISON_VERSION,
            "run_a": self.run_a,
            "run_b": self.run_b,
            "cell_numbering": CELL_NUMBERING,
            "environment": {"a": self.report_a.environment, "b": self.report_b.environment},
            "parameters": {"a": self.report_a.parameters, "b": self.report_b.parameters},
            "changes": changes,
            "missing": {"only_in_a": self.only_in_a, "only_in_b": self.only_in_b},
            "durations": self.durations.to_dict() if self.durations else None,
            "fail_on": list(fail_on),
            "failed": self.fails(fail_on),
            "notebooks": [d.to_dict() for d in self.notebooks],
        }

    def to_json(self, fail_on: tuple[str, ...] = ()) -> str:
        """The comparison as JSON text."""
        return json.dumps(self.to_dict(fail_on), indent=2, ensure_ascii=False) + "\n"

    def to_markdown(self) -> str:
        """The comparison as Markdown: environment, status changes, output diffs, then durations."""
        a, b = self.report_a, self.report_b
        lines = [
            f"# Run comparison: A `{self.run_a}` vs B `{self.run_b}`",
            "",
            "| | A | B |",
            "|---|---|---|",
        ]
        lines += _environment_rows(a, b)
        lines += [f"| parameters | {_params(a)} | {_params(b)} |", ""]
        changes = self.changes()
        lines += [
            f"Compared {len(self.notebooks)} notebooks both runs ran: "
            f"{len(changes['status'])} changed status, {len(changes['output'])} changed output, "
            f"{len(changes['duration'])} changed duration.",
            "",
        ]
        lines += self._missing_lines()
        lines += ["## Status changes", ""]
        changed = [d for d in self.notebooks if d.status_changed]
        for d in changed:
            lines.append(
                f"- {d.path}: {_status(d.status_a, d.code_cell_a)} → {_status(d.status_b, d.code_cell_b)}"
            )
        lines += ["None.", ""] if not changed else [""]
        lines += ["## Changed outputs", "", f"Numbering: {CELL_NUMBERING}", ""]
        drifted = [d for d in self.notebooks if d.cells or d.not_run_a or d.not_run_b]
        if not any(d.cells for d in self.notebooks):
            lines += ["No cell's text output changed (after nbval's sanitizers).", ""]
        for d in drifted:
            lines += [f"### {d.path}", ""]
            for side, cells in (("A", d.not_run_a), ("B", d.not_run_b)):
                if cells:
                    lines += [f"Not run in {side} (the notebook stopped before them): {_ranges(cells)}.", ""]
            for change in d.cells:
                shown = "" if change.execution_count is None else f" (`In [{change.execution_count}]`)"
                if change.source_b is None:
                    lines += [f"Cell {change.cell}{shown}:", "", "```python", change.source, "```", ""]
                else:  # the source itself changed: show both, A then B
                    lines += [
                        f"Cell {change.cell}{shown}, source in run A:",
                        "",
                        "```python",
                        change.source,
                        "```",
                    ]
                    lines += ["", "Source in run B:", "", "```python", change.source_b, "```", ""]
                lines += ["```diff", change.diff(), "```", ""]
        lines += self._duration_lines()
        return "\n".join(lines).rstrip("\n") + "\n"

    def _missing_lines(self) -> list[str]:
        lines = []
        for side, paths in (("A", self.only_in_a), ("B", self.only_in_b)):
            if paths:
                other = "B" if side == "A" else "A"
                lines += [
                    f"Only in run {side} ({_count(len(paths), 'notebook')}, not compared; run {other} "
                    f"did not run them): {', '.join(paths)}",
                    "",
                ]
        return lines

    def _duration_lines(self) -> list[str]:
        lines = ["## Durations", "", f"{SHARED_MACHINE_NOTE} They gate only with `--fail-on duration`.", ""]
        check = self.durations
        if check is None:
            return [*lines, "No notebook passed in both runs: nothing to compare."]
        lines += [check.summary(), ""]
        flagged = [d for d in self.notebooks if d.duration_changed]
        if flagged:
            lines += ["| notebook | A (s) | B (s) | change |", "|---|---:|---:|---:|"]
            for d in flagged:
                change = d.duration_b / d.duration_a - 1 if d.duration_a > 0 else float("inf")
                lines.append(f"| {d.path} | {d.duration_a:.1f} | {d.duration_b:.1f} | {change:+.0%} |")
        else:
            lines.append("No notebook's duration changed beyond that.")
        return lines


def _environment_rows(a: RunReport, b: RunReport) -> list[str]:
    env_a = a.environment or {"torch": a.torch_version, "python": a.python_version}
    env_b = b.environment or {"torch": b.torch_version, "python": b.python_version}
    rows = [f"| device | {a.device or 'default'} | {b.device or 'default'} |"]
    for key, label in ENVIRONMENT_LABELS:
        va, vb = env_a.get(key), env_b.get(key)
        if va in (None, "") and vb in (None, ""):
            continue  # CUDA, cuDNN and ROCm only when one of the runs had them
        mark = " **≠**" if va != vb else ""
        rows.append(f"| {label}{mark} | {'' if va is None else va} | {'' if vb is None else vb} |")
    return rows


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _params(report: RunReport) -> str:
    return ", ".join(f"`{k}={v}`" for k, v in report.parameters.items()) or "defaults"


def _status(status: str, code_cell: int | None) -> str:
    return status if code_cell is None else f"{status} at cell {code_cell}"


def _ranges(numbers: list[int]) -> str:
    """[3, 4, 5, 9] -> 'cells 3-5, 9'."""
    spans: list[list[int]] = []
    for n in numbers:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    text = ", ".join(f"{lo}" if lo == hi else f"{lo}-{hi}" for lo, hi in spans)
    return ("cell " if len(numbers) == 1 else "cells ") + text


def _cell_changes(
    path_a: Path, path_b: Path, sanitize: Sanitizer
) -> tuple[list[CellChange], list[int], list[int]]:
    """Changed cells, and the cells that did not run in A / in B (compared with neither)."""
    if not path_a.is_file() or not path_b.is_file():
        return [], [], []
    code_b = _code_cells(path_b)
    by_key, by_number = {key: cell for _, key, cell in code_b}, {n: cell for n, _, cell in code_b}
    changes, not_run_a, not_run_b = [], [], []
    for number, key, cell_a in _code_cells(path_a):
        # by cell id (stable when cells are added or moved), else by nbval number
        cell_b = by_key.get(key, by_number.get(number))
        if cell_b is None or _skipped(cell_a):
            continue
        ran_a, ran_b = _ran(cell_a), _ran(cell_b)
        if not (ran_a and ran_b):
            if ran_a != ran_b:
                (not_run_b if ran_a else not_run_a).append(number)
            continue
        before = sanitize(cell_text_outputs(cell_a))
        after = sanitize(cell_text_outputs(cell_b))
        if before != after:
            changes.append(
                CellChange(
                    number,
                    cell_a.get("execution_count"),
                    trim_source(cell_a.source),
                    before,
                    after,
                    None if cell_b.source == cell_a.source else trim_source(cell_b.source),
                )
            )
    return changes, not_run_a, not_run_b


def compare_runs(
    run_a: Path,
    run_b: Path,
    sanitize: Sanitizer | None = None,
    duration_threshold: float | None = None,
) -> RunComparison:
    """Compare two finished run folders (each holding report.json and the executed notebooks).

    `duration_threshold` (a fraction, 0.5 = 50 %) replaces the noise estimate for durations.
    """
    sanitize = sanitize or Sanitizer.from_file()
    report_a, report_b = load_report(run_a), load_report(run_b)
    by_path_b = {r.path: r for r in report_b.results}
    paths_a = {r.path for r in report_a.results}
    drift = []
    for ra in report_a.results:
        rb = by_path_b.get(ra.path)
        if rb is None:
            continue
        cells, not_run_a, not_run_b = _cell_changes(
            Path(run_a) / ra.output, Path(run_b) / rb.output, sanitize
        )
        drift.append(
            NotebookDrift(
                ra.path,
                ra.status,
                rb.status,
                ra.duration_s,
                rb.duration_s,
                cells,
                not_run_a,
                not_run_b,
                ra.code_cell if ra.status != "passed" else None,
                rb.code_cell if rb.status != "passed" else None,
            )
        )
    timed = [(d.path, d.duration_a, d.duration_b) for d in drift if d.status_a == d.status_b == "passed"]
    durations = check_durations(timed, duration_threshold) if timed else None
    if durations is not None:
        for d in drift:
            d.duration_changed = d.path in durations.changed
    return RunComparison(
        str(run_a),
        str(run_b),
        report_a,
        report_b,
        drift,
        only_in_a=[r.path for r in report_a.results if r.path not in by_path_b],
        only_in_b=[r.path for r in report_b.results if r.path not in paths_a],
        durations=durations,
    )
