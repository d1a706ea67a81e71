"""`autograd-course generate`: refresh the declared cells of solutions/ and the README, write exercises/."""

from __future__ import annotations

import argparse
import sys

NAME = "generate"
AUDIENCE = "maintainer"
HELP = "write exercises/ from solutions/ (and the evidence contract); --check only reports"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--check."""
    parser.add_argument("--check", action="store_true", help="only report stale files; exit 1 if any")


def main(args: argparse.Namespace) -> int:
    """Generate, or with --check list what is stale (on stderr) and exit 1."""
    from autograd_course.course import course_root
    from autograd_instructor.challenge.generate import generate, stale_files

    if args.check:
        problems = stale_files()
        for problem in problems:
            print(problem, file=sys.stderr)
        if problems:
            print("challenge files are stale; run: autograd-course generate", file=sys.stderr)
            return 1
        print("challenge files are up to date")
        return 0
    for path in generate():
        print(f"wrote {path.relative_to(course_root())}")
    return 0
