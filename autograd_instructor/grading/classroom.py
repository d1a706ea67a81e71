"""Grading a class end to end: find the students, grade (one shard of) them, or merge shards; write it all.

`grade_class` and `merge_class` are what `autograd-course grade` runs. Bad input raises GradeInputError
before anything is graded or written; the caller reports it and exits 2.
"""

from __future__ import annotations

import json
import logging
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from autograd_course.course import content_dir
from autograd_course.execution.sandbox import Sandbox, SandboxError, choose_sandbox
from autograd_course.modes import GRADED, mode_of
from autograd_course.protocol import CommandError
from autograd_course.saved import read_notebook
from autograd_instructor.challenge.secret import SecretError, read_secret
from autograd_instructor.grading.grade import Record, grade_folder
from autograd_instructor.grading.learner_ids import add_notes, resolve_submissions
from autograd_instructor.grading.options import ASSIGNMENT
from autograd_instructor.grading.overrides import Override, OverrideError, read_overrides
from autograd_instructor.grading.preflight import GraderUnusable, check_grader
from autograd_instructor.grading.results import META, exit_status, summary_markdown, write_results
from autograd_instructor.grading.shards import ShardError, in_shard, merge_outputs, parse_shard
from autograd_instructor.grading.students import (
    RosterError,
    Student,
    find_students,
    roster_matching,
    submissions_of,
)

__all__ = ["ClassOptions", "GradeInputError", "grade_class", "merge_class"]

log = logging.getLogger("autograd_instructor.grading")


class GradeInputError(CommandError, ValueError):
    """Input the grader cannot use (folders, roster, shard, sandbox); the message says what was expected."""


@dataclass
class ClassOptions:
    """What `autograd-course grade` was asked to do."""

    out: Path
    submissions: Path | None = None
    roster: Path | None = None
    jobs: int = 2
    timeout: float = 300
    sandbox: str = "auto"
    memory_gib: float = 4
    policy: str = "flag"
    strict: bool = False
    shard: str | None = None
    overwrite: bool = False
    assignment: str = ASSIGNMENT
    quiet: bool = False  # -q: no summary on stdout
    secret: Path | None = None  # the graded release's secret file (`release --graded` wrote it)
    overrides: Path | None = None  # the instructor's points and comments per part (overrides.py)

    def __repr__(self) -> str:
        return f"ClassOptions({self.submissions} -> {self.out}, shard {self.shard or 'all'})"


def _check_out(options: ClassOptions) -> None:
    results = options.out / "results.json"
    if results.exists() and not options.overwrite:
        raise GradeInputError(f"{results} exists; pass --overwrite or choose a new --out")


def _show_summary(text: str, options: ClassOptions) -> None:
    """summary.md on stdout, unless -q asked for warnings and errors only (the file is written anyway)."""
    if not options.quiet:
        print(text)


def _overrides(options: ClassOptions, recorded: list[dict] | None = None) -> list[Override]:
    """The overrides to apply: --overrides, else those a run recorded (a shard's grading.json)."""
    try:
        if options.overrides is not None:
            return read_overrides(options.overrides)
        return [Override(**row) for row in recorded or []]
    except (OverrideError, TypeError) as exc:
        raise GradeInputError(str(exc)) from None


def _warn_dropped_overrides(options: ClassOptions) -> None:
    """Say so when a regrade replaces results that applied overrides and none were given this time."""
    try:
        before = json.loads((options.out / META).read_text()).get("overrides")
    except (OSError, ValueError, AttributeError):
        return
    if before and options.overrides is None:
        log.warning(
            "the results in %s applied %d override(s); this run has no --overrides, so they are not applied",
            options.out,
            len(before),
        )


def merge_class(options: ClassOptions, shards: list[Path]) -> int:
    """Combine shard outputs into options.out; the exit status as `grade` documents it."""
    _check_out(options)
    try:
        records, meta = merge_outputs(shards, options.out)
    except ShardError as exc:
        raise GradeInputError(str(exc)) from None
    overrides = _overrides(options, meta.get("overrides"))
    _check_learners(overrides, {r.student for r in records} | set(meta.get("names") or {}))
    warning = meta.get("warning", "")
    write_results(
        records,
        options.out,
        names=meta.get("names"),
        roster_ids=meta.get("roster_ids"),
        policy=meta.get("policy", "flag"),
        warning=warning,
        assignment=meta.get("assignment", options.assignment),
        canvas_ids=meta.get("canvas_ids"),
        matching=meta.get("matching"),
        overrides=overrides,
    )
    _show_summary(summary_markdown(records, warning, meta.get("matching", [])), options)
    return exit_status(records, options.strict)


def _check_folders(options: ClassOptions) -> Path:
    if options.submissions is None:
        raise GradeInputError("expected SUBMISSIONS_DIR (or --merge OUT...)")
    subs = options.submissions.resolve()
    if not subs.is_dir():
        raise GradeInputError(f"{options.submissions} is not a folder; expected the folder of submissions")
    if options.out == subs or subs in options.out.parents:
        raise GradeInputError(
            "--out is inside the submissions folder; nothing is written there, pick another"
        )
    if options.jobs < 1 or options.timeout <= 0 or options.memory_gib <= 0:
        got = f"{options.jobs}, {options.timeout}, {options.memory_gib}"
        raise GradeInputError(f"expected --jobs >= 1, --timeout > 0 and --memory > 0, got {got}")
    return subs


def _setup(options: ClassOptions, subs: Path) -> tuple[list[Student], list[str], Sandbox]:
    """(the students of this shard, the whole roster's ids, the sandbox)."""
    try:
        shard = parse_shard(options.shard) if options.shard else None
        roster = options.roster.resolve() if options.roster else None
        students = find_students(subs, roster)
        hidden = [subs, options.out, content_dir("solutions")] + ([roster] if roster else [])
        sandbox = choose_sandbox(
            options.sandbox,
            hidden=hidden,
            memory_bytes=int(options.memory_gib * (1 << 30)),
            cpu_seconds=int(options.timeout) + 30,
        )
    except (RosterError, ShardError, SandboxError) as exc:
        raise GradeInputError(str(exc)) from None
    roster_ids = [s.id for s in students if s.on_roster] if roster else []  # the whole roster, every shard
    if shard:
        students = [s for s in students if in_shard(s.id, *shard)]
    if not students and not shard:
        raise GradeInputError(f"no submissions in {subs} and no roster")
    return students, roster_ids, sandbox


def _other_ids(students: list[Student]) -> dict[str, list[str]]:
    """Each student's ids besides their own, that an unstamped notebook may have been drawn with."""
    return {s.id: [s.canvas_id] if s.canvas_id and s.canvas_id != s.id else [] for s in students}


def _id_sources(students: list[Student], roster: Path | None) -> dict[str, str]:
    """Where each student's id came from, as the instructor's notes say it."""
    return {
        s.id: "roster id"
        if roster and s.on_roster
        else "Canvas user id"
        if s.canvas_id == s.id
        else "folder or file name"
        for s in students
    }


def _check_learners(overrides: list[Override], known: set[str]) -> None:
    """Refuse, before grading, an override of a learner the class does not have."""
    for o in overrides:
        if o.learner not in known:
            raise GradeInputError(
                f"--overrides, line {o.line}: learner {o.learner!r} is not in this class "
                f"(known ids: {', '.join(sorted(known)[:8])}{', ...' if len(known) > 8 else ''})"
            )


def class_secret(path: Path | None, found: list) -> str | None:
    """The release's secret from path; GradeInputError when it cannot be read, or when there is none
    and a submitted notebook is graded (its draw and hidden seeds need it)."""
    if path is not None:
        try:
            return read_secret(path)
        except SecretError as exc:
            raise GradeInputError(f"--secret: {exc}") from None
    graded = [
        sub.name
        for sub in found
        if not sub.problem and sub.path.suffix == ".ipynb" and mode_of(read_notebook(sub.path)) == GRADED
    ]
    if graded:
        raise GradeInputError(
            f"{len(graded)} graded notebook(s) ({', '.join(graded[:3])}) are drawn with the release's "
            "secret: pass --secret FILE (the file `release --graded` wrote beside the release)"
        )
    return None


def grade_class(options: ClassOptions) -> int:
    """Grade the class; write results, gradebooks and feedback; print the summary; the exit status."""
    _check_out(options)
    subs = _check_folders(options)
    overrides = _overrides(options)
    students, roster_ids, sandbox = _setup(options, subs)
    if not options.shard:
        _check_learners(overrides, {s.id for s in students})
    _warn_dropped_overrides(options)
    warning = sandbox.warning or sandbox.process_limit_note
    if warning:
        log.warning(warning)
    log.info("grading %d students in %s (%s)", len(students), subs, sandbox)
    with tempfile.TemporaryDirectory(prefix="autograd-course-unpack-") as scratch:
        found = submissions_of(students, subs, Path(scratch))
        secret = class_secret(options.secret, found)
        ids = _other_ids(students), _id_sources(students, options.roster)
        notes = resolve_submissions(found, *ids, secret)
        try:
            check_grader(sandbox, found)
        except GraderUnusable as exc:
            raise GradeInputError(f"cannot grade here, nothing was graded or written: {exc}") from None
        records = grade_folder(
            found,
            jobs=options.jobs,
            timeout=options.timeout,
            executed_dir=options.out / "executed",
            progress=sys.stderr.isatty() and log.isEnabledFor(logging.INFO),
            sandbox=sandbox,
            secret=secret,
        )
    add_notes(records, notes)
    submitted = {sub.student for sub in found}
    records += [
        Record(s.id, "-", None, "missing", "nothing submitted", s.id)
        for s in students
        if s.id not in submitted
    ]
    names = {s.id: s.name for s in students if s.name}
    shard = "/".join(map(str, parse_shard(options.shard))) if options.shard else ""
    matching = roster_matching(students) if options.roster else []
    write_results(
        records,
        options.out,
        names=names,
        roster_ids=roster_ids,
        policy=options.policy,
        warning=warning,
        shard=shard,
        assignment=options.assignment,
        canvas_ids={s.id: s.canvas_id for s in students if s.canvas_id},
        matching=matching,
        overrides=overrides,
    )
    _show_summary(summary_markdown(records, warning, matching), options)
    log.info(
        "wrote %s, grades.csv, canvas.csv, moodle.csv, summary.md, feedback/, audit/",
        options.out / "results.json",
    )
    return exit_status(records, options.strict)
