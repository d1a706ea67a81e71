"""`autograd-course progress`: each lesson's activities, each exercise, the time left and what is next."""

from __future__ import annotations

import argparse
from pathlib import Path

from autograd_course.class_copy import NO_CONTENT, has_content
from autograd_course.learner_path import (
    earlier_lessons,
    exercise_states,
    lesson_states,
    minutes_text,
    next_notebook,
)
from autograd_course.protocol import CommandError

NAME = "progress"
AUDIENCE = "learner"
HELP = "show each lesson's activities done, the challenge exercises (from your last `check`), time left, next"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--dir, the workspace."""
    parser.add_argument("--dir", default="my-work", help="workspace folder (default: my-work)")


def main(args: argparse.Namespace) -> int:
    """Print one line per lesson and per exercise, the time left and the next notebook; imports no torch."""
    if not has_content():
        raise CommandError(f"{NO_CONTENT}; your instructor follows your progress")
    workspace = Path(args.dir)
    if not workspace.is_dir():
        raise CommandError(f"no workspace at {workspace}; run `autograd-course start` first")
    lessons, exercises = lesson_states(workspace), exercise_states(workspace)
    width = max(len(s.title) for s in lessons)
    print(f"Lessons in {workspace / 'lessons'} (activities correct in the notebooks you saved):")
    for s in lessons:
        done = f"{s.correct}/{s.total} activities"
        print(f"  {s.number}  {s.title:<{width}}  {done:<14}  {s.minutes:>3} min  {s.status}")
    earlier = earlier_lessons(workspace)
    if earlier:
        names = ", ".join(p.name for p in earlier)
        print(
            f"  Kept from an earlier version of the course, not counted: {names}. The course's lessons "
            "were split or renumbered since; `autograd-course start` adds the current ones beside yours."
        )
    print(f"\nChallenge in {workspace} (from `autograd-course check`):")
    for e in exercises:
        print(f"  {e.ex_id:<3} {e.title:<{width - 1}}  {e.mode:<14}  {e.minutes:>3} min  {e.status}")
    lesson_left = sum(s.minutes for s in lessons if not s.done)
    challenge_left = sum(e.minutes for e in exercises if not e.done)
    print(
        f"\nTime left by the course's stated times: {minutes_text(lesson_left + challenge_left)} "
        f"(lessons {minutes_text(lesson_left)}, challenge {minutes_text(challenge_left)})"
    )
    upcoming = next_notebook(lessons, exercises)
    print(f"Next: {upcoming} (`autograd-course learn` opens it)" if upcoming else "Everything is done.")
    return 0
