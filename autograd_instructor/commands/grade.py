"""`autograd-course grade SUBMISSIONS_DIR --out RESULTS_DIR`: grade a class's notebooks."""

from __future__ import annotations

import argparse
from pathlib import Path

from autograd_course.commands._verbosity import add_verbosity, configure_logging
from autograd_course.execution.sandbox import MODES
from autograd_instructor.grading.options import ASSIGNMENT, POLICIES

NAME = "grade"
AUDIENCE = "instructor"
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
    parser.add_argument("--sandbox", default="auto", choices=MODES, help="auto (default), bwrap or none")
    parser.add_argument("--memory", type=float, default=4, help="GiB of memory per notebook (default: 4)")
    parser.add_argument(
        "--solution-viewed",
        default="flag",
        choices=POLICIES,
        help="flag (default: keep the points, report it) or zero",
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 unless every part passed (for CI)")
    parser.add_argument("--shard", help="K/N: grade only shard K of N of the students")
    parser.add_argument("--merge", nargs="+", metavar="OUT", help="combine shard outputs into --out")
    parser.add_argument("--overwrite", action="store_true", help="replace results already in --out")
    parser.add_argument(
        "--overrides",
        metavar="CSV",
        help="your points per part, applied on every (re)grade and --merge: header "
        "learner,exercise,part,points,comment (docs/grading.md, Overrides)",
    )
    parser.add_argument(
        "--assignment",
        default=ASSIGNMENT,
        help=f'the grade column of canvas.csv and moodle.csv (default: "{ASSIGNMENT}"); for Canvas, '
        '"Name (id)" updates that existing assignment instead of creating a new one',
    )
    parser.add_argument(
        "--secret",
        metavar="FILE",
        help="the secret file `release --graded` wrote (OUT.secret.json): graded notebooks need it",
    )
    add_verbosity(parser)


def main(args: argparse.Namespace) -> int:
    """Grade (or merge shards), write results, gradebooks and feedback; exit as EPILOG says."""
    # The grader imports torch: only when grading, not for every `autograd-course` call.
    from autograd_instructor.grading.classroom import ClassOptions, grade_class, merge_class

    configure_logging(args, "autograd_instructor.grading")
    options = ClassOptions(
        out=Path(args.out).resolve(),
        submissions=Path(args.submissions) if args.submissions else None,
        roster=Path(args.roster) if args.roster else None,
        jobs=args.jobs,
        timeout=args.timeout,
        sandbox=args.sandbox,
        memory_gib=args.memory,
        policy=args.solution_viewed,
        strict=args.strict,
        shard=args.shard,
        overwrite=args.overwrite,
        assignment=args.assignment,
        quiet=args.quiet,
        overrides=Path(args.overrides) if args.overrides else None,
        secret=Path(args.secret) if args.secret else None,
    )
    if args.merge:  # bad input raises GradeInputError, a CommandError: the CLI prints it, exit 2
        return merge_class(options, [Path(p).resolve() for p in args.merge])
    return grade_class(options)
