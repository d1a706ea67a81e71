"""`autograd-course release OUT`: the student release (lessons and exercises, no solutions) to push."""

from __future__ import annotations

import argparse
from pathlib import Path

from autograd_course.protocol import CommandError

NAME = "release"
AUDIENCE = "instructor"
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
    parser.add_argument(
        "--graded",
        action="store_true",
        help="a graded release: no solution, no verdict and no answer where learners work; "
        "verdicts come from `grade` (needs --roster); course/ is the learners' install",
    )
    parser.add_argument(
        "--roster",
        type=Path,
        help="the roster `grade --roster` reads (an `id` column, or Canvas' gradebook export)",
    )
    parser.add_argument(
        "--secret",
        type=Path,
        help="with --graded: the instructor's secret file, outside OUT (default: OUT.secret.json beside "
        "OUT); made when missing, reused when there; pass it to `grade --secret` and keep it from learners",
    )


def main(args: argparse.Namespace) -> int:
    """Write the release; exit 2 when OUT holds something that is not a release."""
    from autograd_instructor.classroom.release import ReleaseError, make_release
    from autograd_instructor.grading.students import read_roster

    if args.graded and args.roster is None:
        raise CommandError("--graded draws a variant per learner: pass --roster roster.csv (an `id` column)")
    try:
        ids = [row.id for row in read_roster(args.roster)] if args.graded else []
        if args.graded and not ids:
            raise ValueError(f"--roster {args.roster}: no learner to draw a variant for")
        release = make_release(Path(args.out))
    except (ReleaseError, ValueError, OSError) as exc:
        raise CommandError(str(exc)) from None
    if args.graded:
        from autograd_course.course import exercise_notebooks
        from autograd_instructor.classroom.graded_release import make_graded_release
        from autograd_instructor.classroom.release_secret import release_secret

        try:
            secret, secret_path = release_secret(Path(args.out), args.secret, ids)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        release.files += make_graded_release(Path(args.out), exercise_notebooks(), ids, secret)
        print(
            f"wrote {len(release.files)} files to {release.out}: a GRADED release for {len(ids)} learners "
            "(notebooks/, exercises/ with graded-variants.json, course/: install it on the hub with "
            f"`pip install ./course`); the release's secret is in {secret_path}: keep it from learners "
            "and pass it to `autograd-course grade --secret`"
        )
        return 0
    print(f"wrote {len(release.files)} files to {release.out} (notebooks/, exercises/, README.md)")
    return 0
