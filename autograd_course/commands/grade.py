"""`autograd-course grade SUBMISSIONS_DIR --out RESULTS_DIR`: grade a class's notebooks."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

NAME = "grade"
HELP = "grade a class: students, points, gradebooks, feedback, sandboxed kernels, shards"
EPILOG = """exit status: 0 grading completed (whatever the students scored); 1 with --strict when any
part is not passed; 2 bad input (nothing graded); 3 some submissions could not be graded
(error or timeout: see summary.md)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """SUBMISSIONS_DIR, --out and the grading options."""
    parser.epilog = EPILOG
    parser.add_argument(
        "submissions", nargs="?", help="folder of submissions: <student>/... or one file per student"
    )
    parser.add_argument("--out", required=True, help="results folder (must be outside the submissions)")
    parser.add_argument("--roster", help="CSV with header id,name,files (files: ';'-separated, optional)")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks graded at once (default: 2)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per notebook (default: 300)")
    parser.add_argument("--sandbox", default="auto", help="auto (default), bwrap or none")
    parser.add_argument("--memory", type=float, default=4, help="GiB of memory per notebook (default: 4)")
    parser.add_argument(
        "--solution-viewed", default="flag", help="flag (default: keep the points, report it) or zero"
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 unless every part passed (for CI)")
    parser.add_argument("--shard", help="K/N: grade only shard K of N of the students")
    parser.add_argument("--merge", nargs="+", metavar="OUT", help="combine shard outputs into --out")
    parser.add_argument("--overwrite", action="store_true", help="replace results already in --out")


def main(args: argparse.Namespace) -> int:
    """Grade, write results, gradebooks and feedback; print the summary; exit as EPILOG says."""
    from autograd_course.challenge.grading import Record, grade_folder
    from autograd_course.challenge.results import exit_status, summary_markdown, write_results
    from autograd_course.challenge.scoring import POLICIES
    from autograd_course.course import content_dir
    from autograd_course.grading.sandbox import SandboxError, choose_sandbox
    from autograd_course.grading.shards import ShardError, in_shard, merge_outputs, parse_shard
    from autograd_course.grading.students import RosterError, find_students, submissions_of

    out = Path(args.out).resolve()
    if (out / "results.json").exists() and not args.overwrite:
        print(f"error: {out / 'results.json'} exists; pass --overwrite or choose a new --out")
        return 2
    if args.solution_viewed not in POLICIES:
        print(f"error: --solution-viewed must be one of {', '.join(POLICIES)}, got {args.solution_viewed!r}")
        return 2
    if args.merge:
        try:
            records, meta = merge_outputs([Path(p).resolve() for p in args.merge], out)
        except ShardError as exc:
            print(f"error: {exc}")
            return 2
        write_results(
            records,
            out,
            names=meta.get("names"),
            roster_ids=meta.get("roster_ids"),
            policy=meta.get("policy", "flag"),
            warning=meta.get("warning", ""),
        )
        print(summary_markdown(records, meta.get("warning", "")))
        return exit_status(records, args.strict)
    if not args.submissions:
        print("error: expected SUBMISSIONS_DIR (or --merge OUT...)")
        return 2
    subs = Path(args.submissions).resolve()
    if not subs.is_dir():
        print(f"error: {args.submissions} is not a folder; expected the folder of submissions")
        return 2
    if out == subs or subs in out.parents:
        print("error: --out is inside the submissions folder; nothing is written there, pick another folder")
        return 2
    if args.jobs < 1 or args.timeout <= 0 or args.memory <= 0:
        got = f"{args.jobs}, {args.timeout}, {args.memory}"
        print(f"error: expected --jobs >= 1, --timeout > 0 and --memory > 0, got {got}")
        return 2
    try:
        shard = parse_shard(args.shard) if args.shard else None
        roster = Path(args.roster).resolve() if args.roster else None
        students = find_students(subs, roster)
        hidden = [subs, out, content_dir("solutions")] + ([roster] if roster else [])
        sandbox = choose_sandbox(
            args.sandbox,
            hidden=hidden,
            memory_bytes=int(args.memory * (1 << 30)),
            cpu_seconds=int(args.timeout) + 30,
        )
    except (RosterError, ShardError, SandboxError) as exc:
        print(f"error: {exc}")
        return 2
    roster_ids = [s.id for s in students if s.on_roster] if roster else []  # the whole roster, every shard
    if shard:
        students = [s for s in students if in_shard(s.id, *shard)]
    if not students and not shard:
        print(f"error: no submissions in {subs} and no roster")
        return 2
    warning = sandbox.warning or sandbox.process_limit_note
    if warning:
        print(warning, file=sys.stderr)
    names = {s.id: s.name for s in students if s.name}
    with tempfile.TemporaryDirectory(prefix="autograd-course-unpack-") as scratch:
        found = submissions_of(students, subs, Path(scratch))
        records = grade_folder(
            found,
            jobs=args.jobs,
            timeout=args.timeout,
            executed_dir=out / "executed",
            progress=sys.stderr.isatty(),
            sandbox=sandbox,
        )
    for s in students:
        if not s.files:
            records.append(Record(s.id, "-", None, "missing", "nothing submitted", s.id))
    write_results(
        records, out, names=names, roster_ids=roster_ids, policy=args.solution_viewed, warning=warning
    )
    print(summary_markdown(records, warning))
    print(f"wrote {out / 'results.json'}, grades.csv, canvas.csv, moodle.csv, summary.md, feedback/")
    return exit_status(records, args.strict)
