"""`autograd-course setup-cell`: write or check the setup cell at the top of every course notebook."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograd_course.protocol import CommandError

NAME = "setup-cell"
AUDIENCE = "maintainer"
HELP = "write (--write) or check (--check) the Colab/Kaggle setup cell of the notebooks"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--write or --check, then optional notebooks."""
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="write the cell into the notebooks")
    mode.add_argument("--check", action="store_true", help="only list stale notebooks; exit 1 if any")
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: notebooks/ and solutions/")


def main(args: argparse.Namespace) -> int:
    """Write the cell, or list stale notebooks (on stderr, exit 1); a missing notebook is exit 2."""
    from autograd_course.setup_cell import apply, default_notebooks, repository, stale_notebooks

    paths = args.notebooks or default_notebooks()
    missing = [p for p in paths if not p.is_file()]
    if missing:
        raise CommandError(f"no such notebook: {', '.join(map(str, missing))}")
    if args.check:
        stale = stale_notebooks(paths)
        for path in stale:
            print(f"stale: {path}", file=sys.stderr)
        if stale:
            print("setup cells are stale; run: autograd-course setup-cell --write", file=sys.stderr)
            return 1
        print("every setup cell is current")
        return 0
    for path in apply(paths):
        print(f"wrote {path}")
    if not repository():
        print("note: no [project.urls] Repository in pyproject.toml; on Colab the cell says to set one")
    return 0
