"""`autograd-course learn [DIR]`: make the workspace if needed, then open JupyterLab at your next notebook.

Like rustlings, it resumes where you stopped: the lesson you saved last while it still has activities
to do, else the next lesson not done, then the challenge (autograd_course.learner_path).
"""

from __future__ import annotations

import argparse
import importlib.util
import shlex
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

from autograd_course.class_copy import NO_CONTENT, has_content
from autograd_course.commands.start import make_workspace
from autograd_course.learner_path import exercise_states, lesson_states, next_notebook
from autograd_course.protocol import CommandError

NAME = "learn"
AUDIENCE = "learner"
HELP = "open JupyterLab at your next lesson (makes the workspace, default my-work/, the first time)"
LAB_HINT = 'pip install "autograd-debugging-course[lab]" (or open the notebook in the Jupyter you have)'


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """DIR, --seed and --print."""
    parser.add_argument("dir", nargs="?", default="my-work", help="workspace folder (default: my-work)")
    parser.add_argument("--seed", metavar="ID", help="your learner id, as for `autograd-course start --seed`")
    parser.add_argument(
        "--print", action="store_true", help="print the JupyterLab command instead of running it"
    )


def lab_url_path(workspace: Path, notebook: Path) -> str:
    """The JupyterLab page of a notebook in the workspace: /lab/tree/<path relative to the workspace>."""
    return "/lab/tree/" + quote(notebook.resolve().relative_to(workspace.resolve()).as_posix())


def lab_command(workspace: Path, notebook: Path | None) -> list[str]:
    """JupyterLab serving the whole workspace, opening at notebook (the file browser when None)."""
    command = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={workspace.resolve()}"]
    if notebook is not None:
        command.append(f"--LabApp.default_url={lab_url_path(workspace, notebook)}")
    return command


def launch(command: list[str]) -> int:
    """Run JupyterLab until the learner stops it (Ctrl+C); its exit status."""
    try:
        return subprocess.call(command)
    except KeyboardInterrupt:
        return 0


def main(args: argparse.Namespace) -> int:
    """Make or complete the workspace quietly, say where the learner is, then run (or print) JupyterLab."""
    if not has_content():
        raise CommandError(NO_CONTENT)
    workspace = Path(args.dir)
    done = make_workspace(workspace, args.seed)
    if done.copied:
        print(
            f"Your workspace {workspace}: {len(done.copied)} notebooks copied (yours are never overwritten)."
        )
    upcoming = next_notebook(lesson_states(workspace), exercise_states(workspace))
    where = upcoming.relative_to(workspace).as_posix() if upcoming else "the workspace (everything is done)"
    command = lab_command(workspace, upcoming)
    if args.print:
        print(shlex.join(command))
        return 0
    if importlib.util.find_spec("jupyterlab") is None:
        notes = [f"your next notebook: {upcoming}"] if upcoming else []
        raise CommandError(f"JupyterLab is not installed; {LAB_HINT}", *notes)
    print(f"Opening {where} in JupyterLab (`autograd-course progress` shows the rest; Ctrl+C stops it).")
    sys.stdout.flush()
    return launch(command)
