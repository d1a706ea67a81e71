"""`autograd-course class-progress HOMES`: every learner's progress on a hub, from the files they saved."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from autograd_course.protocol import CommandError

NAME = "class-progress"
AUDIENCE = "instructor"
HELP = (
    "show every learner's lessons run, activities, challenge parts and last activity (never runs their code)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """HOMES, --html, --json, --every and --prefix."""
    parser.add_argument("homes", help="the folder of the learners' homes (one per hub user)")
    parser.add_argument(
        "--html", metavar="FILE", help="write a page that reloads itself (with --every: kept fresh)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--every", type=float, help="repeat every N seconds until Ctrl-C (for --html)")
    parser.add_argument(
        "--prefix", default="", help="prefix of the home folders before the user name (TLJH: jupyter-)"
    )


def _show(args: argparse.Namespace, homes: Path) -> None:
    """Read the room once and print or write it."""
    from autograd_instructor.classroom.homes import find_homes
    from autograd_instructor.classroom.room import room_state
    from autograd_instructor.classroom.views import room_html, room_json, room_table

    states = room_state(find_homes(homes, args.prefix))
    if args.html:
        stamp = time.strftime("as of %Y-%m-%d %H:%M:%S")
        refresh = max(int(args.every or 30), 5)
        page = Path(args.html)
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(room_html(states, refresh, stamp), encoding="utf-8")
        print(f"wrote {args.html} ({stamp})")
    elif args.json:
        print(room_json(states))
    else:
        print(room_table(states))


def main(args: argparse.Namespace) -> int:
    """Show the room (again every --every seconds); exit 2 for a HOMES that is not a folder."""
    homes = Path(args.homes)
    if not homes.is_dir():
        raise CommandError(f"{homes} is not a folder; expected the folder of the learners' homes")
    if args.every is not None and args.every <= 0:
        raise CommandError(f"--every needs a positive number of seconds, got {args.every}")
    try:
        while True:
            _show(args, homes)
            if args.every is None:
                return 0
            time.sleep(args.every)
    except KeyboardInterrupt:
        return 0
    except OSError as exc:  # --html somewhere it cannot write
        raise CommandError(f"cannot write {args.html}: {exc.strerror}") from None
