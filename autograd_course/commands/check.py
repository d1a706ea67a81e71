"""`autograd-course check [PATH]`: grade your notebooks in a fresh kernel and print a table."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from autograd_course.protocol import LEARNER_ENV

NAME = "check"
HELP = "grade your challenge notebooks (a file or a folder, default my-work/) in a fresh kernel"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """PATH, --jobs and --timeout."""
    parser.add_argument(
        "path", nargs="?", default="my-work", help="a notebook or a folder (default: my-work)"
    )
    parser.add_argument("--timeout", type=float, default=300, help="seconds per notebook (default: 300)")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks checked at once (default: 1)")


def _learner(workspace: Path) -> str | None:
    """The learner whose variants the workspace holds (C4: env, else course.json), or None."""
    try:
        from autograd_course.learner import read_learner
    except ImportError:
        return os.environ.get(LEARNER_ENV) or None
    return read_learner(workspace)


def main(args: argparse.Namespace) -> int:
    """Exit 0 only when every part of every notebook passes."""
    from autograd_course.challenge.grading import Submission, grade_folder
    from autograd_course.challenge.results import table_text, write_progress

    path = Path(args.path).resolve()  # the grader's kernel runs elsewhere: keep no relative path
    if path.is_file():
        workspace, notebooks = path.parent, [path]
    elif path.is_dir():
        workspace = path
        notebooks = sorted(p for p in path.glob("*.ipynb") if not p.name.startswith("."))
    else:
        print(f"error: {path} does not exist; expected a notebook or a folder (run `autograd-course start`)")
        return 2
    if not notebooks:
        print(f"error: no notebooks in {path}; run `autograd-course start` first")
        return 2
    if args.timeout <= 0 or args.jobs < 1:
        print(f"error: expected a positive --timeout and --jobs >= 1, got {args.timeout} and {args.jobs}")
        return 2
    files = {nb.name: nb for nb in notebooks}
    learner = _learner(workspace)
    subs = [Submission(name, name, nb, learner=learner) for name, nb in files.items()]
    records = grade_folder(subs, jobs=args.jobs, timeout=args.timeout, progress=len(files) > 1)
    print(table_text(records))
    write_progress(workspace, records, files)
    passed = all(r.status == "passed" for r in records)
    print("\nEverything passes." if passed else "\nNot everything passes yet (see the table).")
    return 0 if passed else 1
