"""`autograd-course progress`: which exercises are done, in order, and which to do next."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograd_course.course import exercise_titles
from autograd_course.workspace import read_progress

NAME = "progress"
HELP = "show which challenge exercises are done (from your last `check`) and which to do next"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--dir, the workspace."""
    parser.add_argument("--dir", default="my-work", help="workspace folder (default: my-work)")


def main(args: argparse.Namespace) -> int:
    """Print one line per exercise and the next one to do; imports no torch (it stays fast)."""
    workspace = Path(args.dir)
    if not workspace.is_dir():
        print(f"error: no workspace at {workspace}; run `autograd-course start` first", file=sys.stderr)
        return 2
    state = read_progress(workspace)
    next_up = None
    print(f"Progress in {workspace} (from `autograd-course check`):")
    for ex_id, title in exercise_titles().items():
        found = sorted(workspace.glob(f"{ex_id}_*.ipynb"))
        entry = state.get(found[0].name) if found else None
        if not found:
            status = "missing (autograd-course reset restores it)"
        elif entry is None:
            status = "not checked yet"
        elif found[0].stat().st_mtime > entry.get("mtime", 0):
            status = "changed since the last check"
        elif entry.get("passed"):
            status = "done"
        else:
            status = "to do: " + ", ".join(entry.get("statuses", []))
        if status != "done" and next_up is None:
            next_up = found[0] if found else ex_id
        print(f"  {ex_id:<3} {title:<24} {status}")
    print(f"Next: {next_up}" if next_up else "All exercises done.")
    return 0
