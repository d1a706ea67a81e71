"""`autograd-course collect HOMES --out SUBMISSIONS`: gather the learners' challenge notebooks from a hub."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograd_course.protocol import CommandError

NAME = "collect"
AUDIENCE = "instructor"
HELP = "copy every learner's challenge notebooks from the hub's home folders into a folder for `grade`"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """HOMES, --out, --roster, --prefix and --names."""
    parser.add_argument("homes", help="the folder of the learners' homes (one per hub user)")
    parser.add_argument("--out", required=True, help="a new folder for the submissions (grade reads it)")
    parser.add_argument(
        "--roster", help="where to write the roster for `grade --roster` (default: SUBMISSIONS-roster.csv)"
    )
    parser.add_argument(
        "--prefix", default="", help="prefix of the home folders before the user name (TLJH: jupyter-)"
    )
    parser.add_argument(
        "--names",
        metavar="ROSTER",
        help="the roster you gave `release --graded --roster` (id,name or Canvas' export): the written "
        "roster keeps its names, so canvas.csv and moodle.csv name each learner as it does",
    )


def _release_names(path: Path) -> dict[str, str]:
    """{id: name} of the roster the class was released with (the reader `grade --roster` uses)."""
    from autograd_instructor.grading.students import RosterError, read_roster

    try:
        return {row.id: row.name for row in read_roster(path) if row.name}
    except RosterError as exc:
        raise ValueError(str(exc).replace("--roster", "--names", 1)) from None


def main(args: argparse.Namespace) -> int:
    """Copy, write the roster, list who has nothing; exit 2 for bad input (nothing copied)."""
    from autograd_instructor.classroom.collect import CollectError, collect_work, roster_csv
    from autograd_instructor.classroom.homes import find_homes

    homes, out = Path(args.homes).resolve(), Path(args.out).resolve()
    roster = Path(args.roster).resolve() if args.roster else out.with_name(out.name + "-roster.csv")
    if out == homes or homes in out.parents:
        raise CommandError("--out is inside HOMES; collect into a folder outside the learners' homes")
    if roster.exists():
        raise CommandError(f"{roster} exists; pass --roster with a new file name")
    try:
        names = _release_names(Path(args.names)) if args.names else {}
        learners = find_homes(homes, args.prefix)
        if not learners:
            starting = f" starting with {args.prefix!r}" if args.prefix else ""
            raise CommandError(f"no home folders in {homes}{starting}")
        done = collect_work(learners, out)
    except (ValueError, CollectError) as exc:
        raise CommandError(str(exc)) from None
    for user, files in done.copied.items():
        print(f"{user} (learner id {done.ids[user]}): {len(files)} notebook(s)")
    if done.empty:
        print("nothing to collect from: " + ", ".join(done.empty))
    for reason in done.refused:
        print(f"refused {reason}", file=sys.stderr)
    roster.parent.mkdir(parents=True, exist_ok=True)
    if names:
        unnamed = sorted(user for user, learner in done.ids.items() if learner not in names)
        if unnamed:
            print(f"not on {args.names} (named by user name): {', '.join(unnamed)}", file=sys.stderr)
    roster.write_text(roster_csv(done, names), encoding="utf-8")
    print(f"wrote {out} and {roster}")
    print(f"grade them: autograd-course grade {out} --roster {roster} --out RESULTS")
    return 0
