"""Grading results on disk: results.json/.csv, summary.md, gradebooks, feedback, grading.json."""

from __future__ import annotations

import csv
import json
from dataclasses import asdict
from pathlib import Path

from autograd_course.exercises import EXERCISES
from autograd_course.protocol import EXIT_FAILED, EXIT_INCOMPLETE, EXIT_OK
from autograd_instructor.grading.audit import write_audit
from autograd_instructor.grading.feedback import write_feedback
from autograd_instructor.grading.grade import STATUSES, Record
from autograd_instructor.grading.gradebook import UNTOUCHED, mark_untouched, student_grades, write_gradebooks
from autograd_instructor.grading.options import ASSIGNMENT
from autograd_instructor.grading.overrides import Override, apply_overrides, override_text, overrides_data
from autograd_instructor.grading.scoring import part_max, score

__all__ = [
    "exit_status",
    "read_results",
    "summary_markdown",
    "table_text",
    "write_results",
]

FIELDS = (
    "student",
    "submission",
    "exercise",
    "part",
    "status",
    "points",
    "max_points",
    "checks",
    "hints",
    "solution_viewed",
    "attempts",
    "message",
    "note",
    "flags",
    "mode",
    "override",
)
# A part checked this many times or more is listed in the summary: a learner may be trying answers
# until the check says correct (the check names a wrong stage, so stepping through them all works).
MANY_ATTEMPTS = 5
META = "grading.json"  # what a run knew besides the records (names, roster, policy), for --merge


def _order(r: Record) -> tuple:
    ex = list(EXERCISES).index(r.exercise) if r.exercise in EXERCISES else len(EXERCISES)
    return (r.student, r.submission, ex, r.part or 0)


def _flag_lines(records: list) -> list[str]:
    """Summary lines for the instructor: practice notebooks, and what the grader flagged in answers."""
    lines: list[str] = []
    practice = sorted({r.submission for r in records if r.part and r.mode == "practice"})
    if practice:
        lines += [
            "",
            f"{len(practice)} submission(s) are practice notebooks: their checks and solutions were open to "
            "the learner (`autograd-course release --graded` makes graded ones).",
        ]
    flagged = sorted(
        {f"`{r.submission}` ({r.exercise} part {r.part}): {f}" for r in records for f in r.flags}
    )
    if flagged:
        lines += ["", "## Flagged for the instructor", "", *(f"- {f}" for f in flagged)]
    return lines


def _id_lines(records: list[Record]) -> list[str]:
    """ "Learner ids to check": real problems one a line first, then in one line the notebooks with no
    answer that were never run (nothing stamped, nothing printed: there is no id to check in them)."""
    blank = {
        r.submission
        for r in records
        if all(
            o.status == "not_attempted" or o.message == UNTOUCHED
            for o in records
            if o.submission == r.submission
        )
    }
    notes = sorted({(r.submission, r.note) for r in records if r.note})
    unstamped = {sub for sub, note in notes if sub in blank and note.startswith("no learner id stamped")}
    real = [f"- `{sub}`: {note}" for sub, note in notes if sub not in unstamped]
    idle = sorted(unstamped)
    if not real and not idle:
        return []
    lines = ["", "## Learner ids to check", "", *real]
    if idle:
        names = ", ".join(f"`{sub}`" for sub in idle)
        lines.append(f"- {len(idle)} notebook(s) with no answer, never run, no learner id stamped: {names}")
    return lines


def summary_markdown(records: list[Record], warning: str = "", matching: list[str] | None = None) -> str:
    """A Markdown summary: per exercise and part, counts per status and the pass rate.

    matching: what the roster matched of a Canvas download and what it could not (students.roster_matching).
    """
    submissions = sorted({r.submission for r in records if r.status != "missing"})
    students = sorted({r.student for r in records})
    lines = ["# Grading summary", ""]
    if warning:
        lines += [f"**{warning}**", ""]
    lines += [
        f"{len(students)} students, {len(submissions)} submissions, {len(records)} graded parts.",
        "",
        "| exercise | part | " + " | ".join(STATUSES) + " | pass rate |",
        "|---|---|" + "---|" * len(STATUSES) + "---|",
    ]
    keys = sorted(
        {(r.exercise, r.part or 0) for r in records}, key=lambda k: _order(Record("", k[0], k[1], "", ""))
    )
    for ex, part in keys:
        if ex == "-" and part == 0 and all(r.status == "missing" for r in records if r.exercise == "-"):
            continue
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
    missing = sorted({r.student for r in records if r.status == "missing"})
    if missing:
        lines += ["", f"## Missing ({len(missing)})", "", ", ".join(f"`{m}`" for m in missing)]
    lines += _flag_lines(records)
    if matching:
        lines += ["", "## Canvas users and the roster", "", *(f"- {m}" for m in sorted(matching))]
    lines += _id_lines(records)
    many = sorted(
        {
            f"`{r.student}` {r.exercise}.{r.part}: {r.attempts} checks"
            for r in records
            if r.attempts >= MANY_ATTEMPTS
        }
    )
    if many:
        lines += [
            "",
            f"## Checked {MANY_ATTEMPTS} times or more (trying answers?)",
            "",
            *(f"- {m}" for m in many),
        ]
    viewed = sorted({f"`{r.student}` {r.exercise}.{r.part}" for r in records if r.solution_viewed})
    if viewed:
        lines += ["", "## Solutions viewed", "", *(f"- {v}" for v in viewed)]
    return "\n".join(lines) + "\n"


def write_results(
    records: list[Record],
    out: Path,
    *,
    names: dict[str, str] | None = None,
    roster_ids: list[str] | None = None,
    policy: str = "flag",
    warning: str = "",
    shard: str = "",
    assignment: str = ASSIGNMENT,
    canvas_ids: dict[str, str] | None = None,
    matching: list[str] | None = None,
    overrides: list[Override] | None = None,
) -> None:
    """results.json/.csv, summary.md, grades/canvas/moodle.csv, feedback/, audit/ and grading.json in out.

    shard ("K/N") marks the output of `grade --shard`, so that `--merge` can check it has every shard once.
    overrides: the instructor's points per part, applied after scoring (OverrideError, before anything
    is written, for a learner not in the results; in a shard, rows of other shards' learners are skipped).
    """
    names = dict(names or {})
    for r in records:
        r.student = r.student or r.submission
        r.max_points = part_max(r.part) if r.exercise in EXERCISES and r.part else 0.0
        r.points = score(r, policy)
    known = None if shard else {r.student for r in records} | set(names)
    records = sorted(apply_overrides(records, overrides or [], known, _set_by_instructor), key=_order)
    mark_untouched(records)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps([asdict(r) for r in records], indent=1) + "\n")
    with (out / "results.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")  # trail: results.json
        writer.writeheader()
        for r in records:
            row = asdict(r) | {
                "checks": ";".join(f"{n}={'pass' if ok else 'fail'}" for n, ok in r.checks),
                "flags": "; ".join(r.flags),
                "override": override_text(r.override),
            }
            writer.writerow({k: row[k] for k in FIELDS})
    (out / "summary.md").write_text(summary_markdown(records, warning, matching))
    grades = student_grades(records, names, set(roster_ids or []))
    write_gradebooks(grades, out, assignment, canvas_ids or {})
    write_feedback(records, grades, out)
    write_audit(records, grades, out)
    meta = {
        "names": names,
        "roster_ids": list(roster_ids or []),
        "policy": policy,
        "warning": warning,
        "assignment": assignment,
        "canvas_ids": dict(canvas_ids or {}),
        "matching": sorted(matching or []),
        "overrides": overrides_data(overrides or []),
    }
    if shard:
        meta["shard"] = shard
    (out / META).write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")


def _set_by_instructor(learner: str, exercise: str, part: int) -> Record:
    """The record of an overridden part that no graded notebook of the learner held."""
    why = "no notebook of this exercise was graded; the instructor set this part's points"
    record = Record(f"{learner} (no notebook)", exercise, part, "not_attempted", why, learner)
    record.max_points = part_max(part)
    return record


def read_results(out: Path) -> tuple[list[Record], dict]:
    """The records and the run's metadata from a results folder (for --merge)."""
    records = [Record(**r) for r in json.loads((out / "results.json").read_text())]
    meta = json.loads((out / META).read_text()) if (out / META).exists() else {}
    return records, meta


def exit_status(records: list[Record], strict: bool) -> int:
    """3 when a submission could not be graded (error, timeout), 1 with strict and not all passed, else 0."""
    if any(r.status in ("error", "timeout") for r in records):
        return EXIT_INCOMPLETE
    if strict and any(r.status != "passed" for r in records):
        return EXIT_FAILED
    return EXIT_OK


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
