"""Grading results on disk: results.json, results.csv, summary.md, and the learner's progress file."""

from __future__ import annotations

import csv
import json
from dataclasses import asdict
from pathlib import Path

from autograd_course.challenge.catalogue import EXERCISES
from autograd_course.challenge.grading import STATUSES, Record

__all__ = [
    "PROGRESS_FILE",
    "read_progress",
    "summary_markdown",
    "table_text",
    "write_progress",
    "write_results",
]

PROGRESS_FILE = Path(".autograd-course") / "progress.json"
FIELDS = ("submission", "exercise", "part", "status", "message")


def _order(r: Record) -> tuple:
    ex = list(EXERCISES).index(r.exercise) if r.exercise in EXERCISES else len(EXERCISES)
    return (r.submission, ex, r.part or 0)


def summary_markdown(records: list[Record]) -> str:
    """A Markdown summary: per exercise and part, counts per status and the pass rate."""
    submissions = sorted({r.submission for r in records})
    lines = [
        "# Grading summary",
        "",
        f"{len(submissions)} submissions, {len(records)} graded parts.",
        "",
        "| exercise | part | " + " | ".join(STATUSES) + " | pass rate |",
        "|---|---|" + "---|" * len(STATUSES) + "---|",
    ]
    keys = sorted(
        {(r.exercise, r.part or 0) for r in records}, key=lambda k: _order(Record("", k[0], k[1], "", ""))
    )
    for ex, part in keys:
        rows = [r for r in records if r.exercise == ex and (r.part or 0) == part]
        counts = [sum(r.status == s for r in rows) for s in STATUSES]
        rate = counts[0] / len(rows)
        lines.append(f"| {ex} | {part or '-'} | " + " | ".join(map(str, counts)) + f" | {rate:.0%} |")
    problems = [r for r in records if r.status in ("error", "timeout")]
    if problems:
        lines += ["", "## Errors and timeouts", ""]
        lines += [
            f"- `{r.submission}` ({r.exercise} part {r.part or '-'}): {r.status}, {r.message}"
            for r in problems
        ]
    return "\n".join(lines) + "\n"


def write_results(records: list[Record], out: Path) -> None:
    """results.json, results.csv and summary.md in out."""
    records = sorted(records, key=_order)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps([asdict(r) for r in records], indent=1) + "\n")
    with (out / "results.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(asdict(r) for r in records)
    (out / "summary.md").write_text(summary_markdown(records))


def table_text(records: list[Record]) -> str:
    """A plain-text table: notebook, exercise, part, outcome, message."""
    rows = [
        (r.submission, r.exercise, str(r.part or "-"), r.status, r.message)
        for r in sorted(records, key=_order)
    ]
    head = ("notebook", "exercise", "part", "outcome", "message")
    widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(head[:4])]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"
    return "\n".join(
        [fmt.format(*head), fmt.format(*("-" * w for w in widths), "-------")]
        + [fmt.format(*r) for r in rows]
    )


def write_progress(workspace: Path, records: list[Record], files: dict[str, Path]) -> None:
    """Remember each checked notebook's outcome and modification time, for `progress`."""
    path = workspace / PROGRESS_FILE
    state = read_progress(workspace)
    for name, nb in files.items():
        mine = [r for r in records if r.submission == name]
        state[name] = {
            "mtime": nb.stat().st_mtime,
            "exercises": sorted({r.exercise for r in mine}),
            "passed": bool(mine) and all(r.status == "passed" for r in mine),
            "statuses": [f"part {r.part}: {r.status}" if r.part else r.status for r in mine],
        }
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(state, indent=1) + "\n")


def read_progress(workspace: Path) -> dict:
    """The progress state `check` wrote, or {} when there is none (or it is unreadable)."""
    try:
        data = json.loads((workspace / PROGRESS_FILE).read_text())
    except (OSError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}
