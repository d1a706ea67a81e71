"""`autograd-course help [WHO]`: the commands for learners, instructors or maintainers."""

from __future__ import annotations

import argparse

from autograd_course.commands import AUDIENCES, listing

NAME = "help"
AUDIENCE = "learner"
HELP = "list the commands for instructors (`help instructor`), maintainers (`help maintainer`) or all"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """WHO, default learner."""
    parser.add_argument(
        "who", nargs="?", default="learner", choices=[*AUDIENCES, "all"], help="default: learner"
    )


def main(args: argparse.Namespace) -> int:
    """Print the chosen audiences' commands, then how to get a command's own help."""
    chosen = list(AUDIENCES) if args.who == "all" else [args.who]
    print("\n\n".join(listing(who) for who in chosen))
    print("\nEach command's own options: autograd-course COMMAND --help")
    return 0
