"""`autograd-course check [PATH]`: grade your challenge notebooks in a fresh kernel and print a table.

`check` grades the challenge (A_*.ipynb ... M3_*.ipynb). A lesson checks its own activities as you run
it; given lessons, `check` says so in one line and shows the activities as you saved them.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from autograd_course.course import exercise_ids
from autograd_course.learner import read_learner
from autograd_course.protocol import CommandError
from autograd_course.saved import activities_correct, check_cells, read_notebook
from autograd_course.workspace import PROGRESS_FILE, write_progress
from autograd_instructor.classroom.homes import is_challenge_name

NAME = "check"
AUDIENCE = "learner"
HELP = "grade your challenge notebooks (a file or a folder, default my-work/) in a fresh kernel"
PURPOSE = (
    "`autograd-course check` grades the challenge notebooks (A_*.ipynb ... M3_*.ipynb) in a fresh kernel"
)
LESSON = re.compile(r"^\d\d_.*\.ipynb$")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """PATH, --jobs and --timeout."""
    parser.add_argument(
        "path", nargs="?", default="my-work", help="a notebook or a folder (default: my-work)"
    )
    parser.add_argument("--timeout", type=float, default=300, help="seconds per notebook (default: 300)")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks checked at once (default: 1)")


def _found(path: Path) -> tuple[Path, list[Path]] | None:
    """(workspace, notebooks) for a notebook or a folder; None when the path does not exist."""
    if path.is_file():
        return path.parent, [path]
    if path.is_dir():
        return path, sorted(p for p in path.glob("*.ipynb") if not p.name.startswith("."))
    return None


def _lessons_as_saved(lessons: list[Path]) -> None:
    """One line per lesson: its activities correct, as the learner saved it (nothing is run)."""
    print("Your lessons' activities, as you saved them (each lesson checks them as you run it):")
    for lesson in lessons:
        nb = read_notebook(lesson)
        print(f"  {lesson.name:<40} {len(activities_correct(nb))}/{check_cells(nb)} activities correct")
    print("`autograd-course progress` shows every lesson, the challenge and the time left.")


def _split(notebooks: list[Path]) -> tuple[list[Path], list[Path], list[Path]]:
    """(challenge notebooks, lessons, anything else)."""
    ids = exercise_ids()
    challenge = [nb for nb in notebooks if is_challenge_name(nb.name, ids)]
    lessons = [nb for nb in notebooks if nb not in challenge and LESSON.match(nb.name)]
    return challenge, lessons, [nb for nb in notebooks if nb not in challenge and nb not in lessons]


def main(args: argparse.Namespace) -> int:
    """Exit 0 only when every part of every challenge notebook passes (or only lessons were given)."""
    path = Path(args.path).resolve()  # the grader's kernel runs elsewhere: keep no relative path
    found = _found(path)
    if found is None:
        raise CommandError(
            f"{path} does not exist; expected a notebook or a folder (run `autograd-course start`)"
        )
    workspace, notebooks = found
    if not notebooks:
        raise CommandError(f"no notebooks in {path}; run `autograd-course start` first")
    if args.timeout <= 0 or args.jobs < 1:
        raise CommandError(
            f"expected a positive --timeout and --jobs >= 1, got {args.timeout} and {args.jobs}"
        )
    challenge, lessons, others = _split(notebooks)
    if lessons and challenge:
        print(f"skipped {len(lessons)} lessons: they check their activities as you run them")
    if others:
        print(f"skipped {', '.join(nb.name for nb in others)}: not a challenge notebook")
    if not challenge:
        print(f"{PURPOSE}; {path} has none.")
        if lessons:
            _lessons_as_saved(lessons)
        return 0 if lessons else 2
    return _grade(workspace, challenge, args)


def submissions(files: dict[str, Path], learner: str | None, jobs: int) -> list:
    """One Submission per notebook, in `jobs` groups of neighbouring notebooks.

    The grader starts one kernel per group (its "student"): starting a kernel and importing torch is
    most of what checking a notebook costs, so the notebooks share `jobs` kernels that run side by side.
    """
    from autograd_instructor.grading.grade import Submission

    count = len(files)
    return [
        Submission(f"group {k * jobs // count:04d}", name, nb, learner=learner)
        for k, (name, nb) in enumerate(files.items())
    ]


def _grade(workspace: Path, notebooks: list[Path], args: argparse.Namespace) -> int:
    """Grade the challenge notebooks, print the table, remember the outcome for `progress`."""
    # The grader imports torch: only when checking, not for every `autograd-course` call.
    from autograd_instructor.grading.grade import grade_folder
    from autograd_instructor.grading.preflight import GraderUnusable, check_grader
    from autograd_instructor.grading.results import table_text

    files = {nb.name: nb for nb in notebooks}
    subs = submissions(files, read_learner(workspace), args.jobs)
    try:
        check_grader(None, subs)
    except GraderUnusable as exc:
        raise CommandError(f"`check` cannot grade in this installation: {exc}") from None
    records = grade_folder(subs, jobs=args.jobs, timeout=args.timeout, progress=len(files) > 1)
    print(table_text(records))
    modes = sorted({f"{r.submission}: {r.mode}" for r in records if r.part})
    print(
        "\nThe grader ran each answer cell, after the earlier cells it uses, on broken code and seeds you "
        "have not seen "
        f"(the same way `grade` does). Notebooks: {'; '.join(modes) or 'none graded'}. "
        f"Each `check` run is recorded as an attempt in {PROGRESS_FILE}."
    )
    write_progress(workspace, records, files)
    passed = all(r.status == "passed" for r in records)
    print("\nEverything passes." if passed else "\nNot everything passes yet (see the table).")
    return 0 if passed else 1
