"""`autograd-course grade SUBMISSIONS_DIR --out RESULTS_DIR`: grade a class's notebooks."""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "grade"
HELP = "grade every submitted notebook in parallel; writes results.json, results.csv, summary.md, executed/"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """SUBMISSIONS_DIR, --out, --jobs, --timeout, --overwrite."""
    parser.add_argument("submissions", help="folder of submissions (any file names, nested folders allowed)")
    parser.add_argument("--out", required=True, help="results folder (must be outside the submissions)")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks graded at once (default: 2)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=300,
        help="seconds each notebook may run, then: timeout (default: 300)",
    )
    parser.add_argument("--overwrite", action="store_true", help="replace results already in --out")


def main(args: argparse.Namespace) -> int:
    """Grade, write the results, print the summary; exit 2 on bad arguments."""
    from autograd_course.challenge.grading import find_submissions, grade_folder
    from autograd_course.challenge.results import summary_markdown, write_results

    subs, out = Path(args.submissions).resolve(), Path(args.out).resolve()
    if not subs.is_dir():
        print(f"error: {args.submissions} is not a folder; expected the folder of submissions")
        return 2
    if out == subs or subs in out.parents:
        print("error: --out is inside the submissions folder; nothing is written there, pick another folder")
        return 2
    if (out / "results.json").exists() and not args.overwrite:
        print(f"error: {out / 'results.json'} exists; pass --overwrite or choose a new --out")
        return 2
    if args.jobs < 1 or args.timeout <= 0:
        print(f"error: expected --jobs >= 1 and --timeout > 0, got {args.jobs} and {args.timeout}")
        return 2
    found = [(str(p.relative_to(subs)), p) for p in find_submissions(subs)]
    if not found:
        print(f"error: no files in {subs}")
        return 2
    records = grade_folder(found, jobs=args.jobs, timeout=args.timeout, executed_dir=out / "executed")
    write_results(records, out)
    print(summary_markdown(records))
    print(f"wrote {out / 'results.json'}, {out / 'results.csv'}, {out / 'summary.md'}")
    return 0
