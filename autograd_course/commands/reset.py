"""`autograd-course reset EXERCISE`: restore one exercise, keeping your version as a backup."""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

from autograd_course.challenge.catalogue import EXERCISES
from autograd_course.course import repo_root

NAME = "reset"
HELP = "restore one exercise in your workspace (your version is kept as a timestamped backup)"
BACKUPS = ".backups"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """EXERCISE and --dir."""
    parser.add_argument("exercise", help=f"exercise id ({', '.join(EXERCISES)}) or its notebook's file name")
    parser.add_argument("--dir", default="my-work", help="workspace folder (default: my-work)")


def _source(name: str) -> Path | None:
    stem = Path(name).name.removesuffix(".ipynb")
    folder = repo_root() / "exercises"
    exact = folder / f"{stem}.ipynb"
    if exact.exists():
        return exact
    found = sorted(folder.glob(f"{stem}_*.ipynb"))
    return found[0] if found else None


def backup_path(workspace: Path, target: Path) -> Path:
    """A new, unused backup file name for target, stamped with the current time."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder = workspace / BACKUPS
    candidate = folder / f"{target.stem}.{stamp}.ipynb"
    n = 1
    while candidate.exists():
        candidate = folder / f"{target.stem}.{stamp}-{n}.ipynb"
        n += 1
    return candidate


def main(args: argparse.Namespace) -> int:
    """Back up the learner's notebook (if any), then copy the fresh exercise."""
    source = _source(args.exercise)
    if source is None:
        print(f"error: no exercise {args.exercise!r}; expected one of {', '.join(EXERCISES)}")
        return 2
    workspace = Path(args.dir)
    target = workspace / source.name
    workspace.mkdir(parents=True, exist_ok=True)
    if target.exists():
        backup = backup_path(workspace, target)
        backup.parent.mkdir(exist_ok=True)
        shutil.copy2(target, backup)
        print(f"saved your version as {backup}")
    shutil.copyfile(source, target)
    print(f"restored {target}")
    return 0
