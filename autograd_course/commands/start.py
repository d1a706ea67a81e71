"""`autograd-course start [DIR]`: copy the challenge exercises into a workspace."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from autograd_course.course import repo_root

NAME = "start"
HELP = "copy the challenge exercises into your workspace (default my-work/); never overwrites a file"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """DIR, the workspace."""
    parser.add_argument("dir", nargs="?", default="my-work", help="workspace folder (default: my-work)")


def main(args: argparse.Namespace) -> int:
    """Copy every exercises/*.ipynb that the workspace does not have yet."""
    source = sorted((repo_root() / "exercises").glob("*.ipynb"))
    if not source:
        print(f"error: no exercises found in {repo_root() / 'exercises'}")
        return 2
    dest = Path(args.dir)
    if dest.exists() and not dest.is_dir():
        print(f"error: {dest} exists and is not a folder; expected a folder for your workspace")
        return 2
    dest.mkdir(parents=True, exist_ok=True)
    for nb in source:
        target = dest / nb.name
        if target.exists():
            print(f"kept   {target} (yours; `autograd-course reset {nb.stem.split('_')[0]}` restores it)")
        else:
            shutil.copyfile(nb, target)
            print(f"copied {target}")
    print(f"Open {dest / source[0].name} in JupyterLab; `autograd-course check {dest}` grades your work.")
    return 0
