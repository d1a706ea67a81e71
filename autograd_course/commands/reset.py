"""`autograd-course reset NAME`: restore one exercise or lesson, keeping your version as a backup."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from autograd_course.class_copy import has_content, local_notebook, upstream_version
from autograd_course.course import COURSE_MAP, course_notebooks, exercise_ids, find_exercise
from autograd_course.protocol import CommandError
from autograd_course.workspace import LESSONS, backup_path, copy_notebook, record_reset, recorded_learner

LESSON_RANGE = f"{COURSE_MAP[0].number}-{COURSE_MAP[-1].number}"

NAME = "reset"
AUDIENCE = "learner"
HELP = "restore one exercise (A, b, M1...) or lesson (03) in your workspace; yours goes to backups/"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """NAME and --dir."""
    parser.add_argument(
        "exercise", help=f"exercise id (A-E, M1-M3, any case), lesson number ({LESSON_RANGE}) or file name"
    )
    parser.add_argument("--dir", default="my-work", help="workspace folder (default: my-work)")


def _source(name: str, workspace: Path) -> tuple[Path, Path] | None:
    """(course notebook, its place in the workspace) for an exercise id, lesson number or file name."""
    exercise = find_exercise(name)
    if exercise is not None:
        return exercise, workspace / exercise.name
    stem = Path(name).name.removesuffix(".ipynb")
    if stem.isdigit():
        stem = stem.zfill(2)  # "4" is lesson 04
    for lesson in course_notebooks():
        if stem in (lesson.stem, lesson.name[:2]):
            return lesson, workspace / LESSONS / lesson.name
    return None


def _reset_from_upstream(name: str, folder: Path) -> int:
    """In a class's install (no notebooks of its own): restore folder's notebook from the clone's upstream."""
    target = local_notebook(name, folder)
    if target is None:
        raise CommandError(f"no notebook {name!r} in {folder}; pass --dir with the folder that holds it")
    fresh = upstream_version(target)
    if isinstance(fresh, str):
        raise CommandError(f"cannot reset {target}: {fresh}")
    backup = backup_path(folder, target)
    backup.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(target, backup)
    print(f"saved your version as {backup}")
    target.write_bytes(fresh)
    print(f"restored {target} (your course's version)")
    print(_open_copy_note(target))
    return 0


def main(args: argparse.Namespace) -> int:
    """Back up the learner's notebook (if any), then copy the fresh one."""
    workspace = Path(args.dir)
    if not has_content():
        return _reset_from_upstream(args.exercise, workspace)
    found = _source(args.exercise, workspace)
    if found is None:
        raise CommandError(
            f"no exercise or lesson {args.exercise!r}; expected one of "
            f"{', '.join(exercise_ids())} (exercises, any case) or a lesson number ({LESSON_RANGE})"
        )
    source, target = found
    if target.exists():
        backup = backup_path(workspace, target)
        backup.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(target, backup)
        print(f"saved your version as {backup}")
    is_exercise = target.parent == workspace
    learner = recorded_learner(workspace) if is_exercise else None
    copy_notebook(source, target, learner, lesson=not is_exercise)
    record_reset(workspace, target)
    print(f"restored {target}")
    print(_open_copy_note(target))
    return 0


def _open_copy_note(target: Path) -> str:
    """What to do about a copy of target still open in Jupyter: saving it would write the old version back."""
    from autograd_course.open_notebooks import open_in

    servers = open_in(target)
    reload = (
        "choose File > Reload Notebook from Disk there (or close its tab and Discard) before you save. "
        'If JupyterLab shows "File Changed" when you save, click Revert, which loads the restored notebook. '
        "Do not press Enter there: Enter chooses Overwrite, which writes your old version back over the reset"
    )
    if servers:
        return f"{target.name} is open in JupyterLab ({', '.join(servers)}): {reload}."
    return f"If {target.name} is open in Jupyter, {reload}."
