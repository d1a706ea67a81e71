"""`autograd-course check [PATH]`: grade your notebooks in a fresh kernel and print a table."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograd_course.learner import read_learner
from autograd_course.workspace import write_progress

NAME = "check"
HELP = "grade your challenge notebooks (a file or a folder, default my-work/) in a fresh kernel"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """PATH, --jobs and --timeout."""
    parser.add_argument(
        "path", nargs="?", default="my-work", help="a notebook or a folder (default: my-work)"
    )
    parser.add_argument("--timeout", type=float, default=300, help="seconds per notebook (default: 300)")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks checked at once (default: 1)")


def main(args: argparse.Namespace) -> int:
    """Exit 0 only when every part of every notebook passes."""
    # The grader imports torch: only when checking, not for every `autograd-course` call.
    from autograd_course.grading.grade import Submission, grade_folder
    from autograd_course.grading.preflight import GraderUnusable, check_grader
    from autograd_course.grading.results import table_text

    path = Path(args.path).resolve()  # the grader's kernel runs elsewhere: keep no relative path
    if path.is_file():
        workspace, notebooks = path.parent, [path]
    elif path.is_dir():
        workspace = path
        notebooks = sorted(p for p in path.glob("*.ipynb") if not p.name.startswith("."))
    else:
        print(
            f"error: {path} does not exist; expected a notebook or a folder (run `autograd-course start`)",
            file=sys.stderr,
        )
        return 2
    if not notebooks:
        print(f"error: no notebooks in {path}; run `autograd-course start` first", file=sys.stderr)
        return 2
    if args.timeout <= 0 or args.jobs < 1:
        print(
            f"error: expected a positive --timeout and --jobs >= 1, got {args.timeout} and {args.jobs}",
            file=sys.stderr,
        )
        return 2
    files = {nb.name: nb for nb in notebooks}
    learner = read_learner(workspace)
    subs = [Submission(name, name, nb, learner=learner) for name, nb in files.items()]
    try:
        check_grader(None, subs)
    except GraderUnusable as exc:
        print(f"error: `check` cannot grade in this installation: {exc}", file=sys.stderr)
        return 2
    records = grade_folder(subs, jobs=args.jobs, timeout=args.timeout, progress=len(files) > 1)
    print(table_text(records))
    write_progress(workspace, records, files)
    passed = all(r.status == "passed" for r in records)
    print("\nEverything passes." if passed else "\nNot everything passes yet (see the table).")
    return 0 if passed else 1
