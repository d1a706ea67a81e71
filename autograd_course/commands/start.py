"""`autograd-course start [DIR] [--seed ID]`: a learner workspace with every lesson and exercise."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from autograd_course.protocol import LEARNER_ENV, CommandError
from autograd_course.workspace import Populated, populate, recorded_learner, write_learner

NAME = "start"
AUDIENCE = "learner"
HELP = "create your workspace (default my-work/): every lesson and exercise; never overwrites a file"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """DIR, the workspace, and --seed, the learner id that draws the exercise variants."""
    parser.add_argument("dir", nargs="?", default="my-work", help="workspace folder (default: my-work)")
    parser.add_argument(
        "--seed",
        metavar="ID",
        help="your learner id (e.g. from your instructor): draws your own variant of each exercise "
        f"(default: ${LEARNER_ENV} when set)",
    )


def make_workspace(dest: Path, seed: str | None) -> Populated:
    """Check DIR and --seed, then copy what the workspace lacks; CommandError for bad input."""
    if dest.exists() and not dest.is_dir():
        raise CommandError(f"{dest} exists and is not a folder; expected a folder for your workspace")
    # $AUTOGRAD_COURSE_LEARNER is the same as --seed (the kernel draws with it): recorded and stamped alike
    seed = seed.strip() if seed is not None else os.environ.get(LEARNER_ENV, "").strip() or None
    if seed is not None and not seed:
        raise CommandError("--seed needs a non-empty learner id, e.g. --seed alice@example.org")
    recorded = recorded_learner(dest)
    if seed and recorded and seed != recorded:
        raise CommandError(
            f"{dest} belongs to learner {recorded!r} (course.json); start a new folder for {seed!r}"
        )
    dest.mkdir(parents=True, exist_ok=True)
    if seed and not recorded:
        print(f"learner {seed} recorded in {write_learner(dest, seed)}")
    try:
        return populate(dest, seed or recorded)
    except FileNotFoundError as exc:
        raise CommandError(str(exc)) from None


def main(args: argparse.Namespace) -> int:
    """Copy every notebook the workspace does not have yet; report what was kept."""
    dest = Path(args.dir)
    done = make_workspace(dest, args.seed)
    learner = recorded_learner(dest)
    for path in done.copied:
        print(f"copied {path}")
    for path in done.kept:
        note = f"stamped for learner {learner}; " if path in done.stamped else ""
        reset = f"autograd-course reset {path.stem.split('_')[0]}"
        print(f"kept   {path} ({note}yours: `{reset}` restores the original)")
    where = "" if args.dir == "my-work" else f" {args.dir}"
    print(f"\nOpen JupyterLab at your next lesson: autograd-course learn{where}")
    print(f"Grade your challenge notebooks: autograd-course check {dest}")
    return 0
