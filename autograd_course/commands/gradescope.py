"""`autograd-course gradescope --out autograder.zip`: the Gradescope autograder bundle."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograd_course.course import course_root

NAME = "gradescope"
HELP = "build the Gradescope autograder bundle (setup.sh, run_autograder, the course package)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--out and --overwrite."""
    parser.add_argument("--out", default="autograder.zip", help="the zip to write (default: autograder.zip)")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --out")


def main(args: argparse.Namespace) -> int:
    """Write the bundle; exit 2 when --out exists (without --overwrite)."""
    # The grader imports torch: only for this command, not for every `autograd-course` call.
    from autograd_course.grading.gradescope import build_bundle

    out = Path(args.out).resolve()
    if out.exists() and not args.overwrite:
        print(f"error: {out} exists; pass --overwrite or choose another --out", file=sys.stderr)
        return 2
    build_bundle(out, course_root())
    print(f"wrote {out}: upload it as the assignment's autograder (Configure Autograder > Zip file upload)")
    return 0
