"""Writes README.md's course map and each lesson's stated time from COURSE_MAP and the notebooks.

    python -m autograd_course.readme_map            # rewrite the course map and the lessons' time lines
    python -m autograd_course.readme_map --check    # exit 1 when either is stale (no write)

The minutes come from `autograd_course.course_times` (the lessons' lines: `autograd_course.stated_times`);
run this after any lesson or exercise changes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograd_course.course import COURSE_MAP, challenge_minutes, content_dir, course_root, exercise_notebooks
from autograd_course.stated_times import stale_lessons, update_lesson

__all__ = ["BEGIN", "END", "course_map_markdown", "main", "updated_readme"]

BEGIN, END = "<!-- course-map:begin -->", "<!-- course-map:end -->"


def course_map_markdown() -> str:
    """The course map as the README shows it: one row per lesson, then the challenge and the total."""
    minutes = [x.minutes for x in COURSE_MAP]  # each lesson estimated once
    rows = ["| # | notebook | what you learn | min |", "|---|---|---|---|"]
    rows += [f"| {x.number} | {x.title} | {x.learn} | {m} |" for x, m in zip(COURSE_MAP, minutes)]
    lessons, challenge = sum(minutes), challenge_minutes()
    return "\n".join(
        [
            *rows,
            "",
            f"Then the TinyNet bug challenge in `exercises/` (below): {len(exercise_notebooks())} notebooks,"
            f" {challenge} min. In all, {lessons} min of lessons and {challenge} of challenge, about"
            f" {round((lessons + challenge) / 60)} hours. The minutes are estimated from each notebook by the"
            " method in CONTRIBUTING.md.",
        ]
    )


def updated_readme(text: str) -> str:
    """README text with the block between the markers replaced by the current course map."""
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise ValueError(f"README.md must hold one {BEGIN} ... {END} block")
    head, rest = text.split(BEGIN)
    tail = rest.split(END)[1]
    return f"{head}{BEGIN}\n{course_map_markdown()}\n{END}{tail}"


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m autograd_course.readme_map", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="exit 1 when README.md or a lesson's time is stale; write nothing",
    )
    parser.add_argument(
        "--readme", type=Path, default=None, help="the README to update (default: the course's)"
    )
    parser.add_argument(
        "--notebooks",
        type=Path,
        default=None,
        help="the lessons to update (default: the course's notebooks/)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    readme = args.readme or course_root() / "README.md"
    lessons = args.notebooks or content_dir("notebooks")
    try:
        text = readme.read_text(encoding="utf-8")
        new = updated_readme(text)
        stale = stale_lessons(lessons)
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.check:
        if new != text:
            print(f"{readme} is stale: run python -m autograd_course.readme_map", file=sys.stderr)
        if stale:
            print(
                f"stated times are stale in {', '.join(stale)}: run python -m autograd_course.readme_map",
                file=sys.stderr,
            )
        return 1 if new != text or stale else 0
    if new != text:
        readme.write_text(new, encoding="utf-8")
        print(f"updated the course map in {readme}")
    try:
        for name, found in stale.items():
            update_lesson(lessons / name, found)
            print(f"updated the stated time in {name}")
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
