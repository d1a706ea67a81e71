"""`autograd-course gradescope --out autograder.zip`: the Gradescope autograder bundle."""

from __future__ import annotations

import argparse
from pathlib import Path

from autograd_course.protocol import CommandError

NAME = "gradescope"
AUDIENCE = "instructor"
HELP = "build the Gradescope autograder bundle (setup.sh, run_autograder, the course as a wheel)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--out, --overwrite and --overrides."""
    parser.add_argument("--out", default="autograder.zip", help="the zip to write (default: autograder.zip)")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    parser.add_argument(
        "--overrides",
        metavar="CSV",
        help="your points per part (learner,exercise,part,points,comment; the learner is the Gradescope "
        "sid, else the email), applied to every submission and regrade",
    )
    parser.add_argument(
        "--secret",
        metavar="FILE",
        help="the secret file `release --graded` wrote: needed to grade graded notebooks (it goes into "
        "the bundle, which only staff see, and is hidden from the learners' kernels)",
    )


def main(args: argparse.Namespace) -> int:
    """Write the bundle; exit 2 when --out exists (without --overwrite) or the bundle would be incomplete."""
    # The bundle packs the toolkit, which imports torch: only for this command.
    from autograd_instructor.grading.bundle import BundleError, build_bundle

    out = Path(args.out).resolve()
    if out.exists() and not args.overwrite:
        raise CommandError(f"{out} exists; pass --overwrite or choose another --out")
    if not out.parent.is_dir():
        raise CommandError(f"{out.parent} is not a folder; expected --out in an existing folder")
    try:
        build_bundle(
            out,
            Path(args.overrides) if args.overrides else None,
            Path(args.secret) if args.secret else None,
        )
    except BundleError as exc:
        raise CommandError(f"no bundle written: {exc}") from None
    print(f"wrote {out}: upload it as the assignment's autograder (Configure Autograder > Zip file upload)")
    return 0
