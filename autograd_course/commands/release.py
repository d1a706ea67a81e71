"""`autograd-course release OUT`: the student release (lessons and exercises, no solutions) to push."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "release"
HELP = "write the student release (lessons and exercises, never solutions/) for learners to pull on a hub"
EPILOG = """Push OUT as a branch of your repository and point the links at it, e.g.
  autograd-course release student && cd student && git init -b student && git add -A
  git commit -m "student release" && git push --force https://github.com/YOU/autograd-course student
  autograd-course links --repo https://github.com/YOU/autograd-course --ref student --hub https://hub.example.edu
OUT may be new, empty (a fresh git clone is fine) or an earlier release, which is updated in place."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """OUT, the release folder."""
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("out", help="the release folder (new, empty, or an earlier release)")


def main(args: argparse.Namespace) -> int:
    """Write the release; exit 2 when OUT holds something that is not a release."""
    from autograd_course.classroom.release import ReleaseError, make_release

    try:
        release = make_release(Path(args.out))
    except ReleaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {len(release.files)} files to {release.out} (notebooks/, exercises/, README.md)")
    return 0
