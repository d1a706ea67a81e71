"""Entry point of `autograd-course`: finds the subcommands and dispatches to them."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from autograd_course.commands import command_modules
from autograd_course.course import course_map_text
from autograd_course.protocol import CommandError

__all__ = ["build_parser", "course_map_text", "main"]

WORKSPACE_NOTE = (
    "Your workspace (`autograd-course start [DIR]`, default my-work/): the lessons in DIR/lessons/,\n"
    "the challenge notebooks at the top of DIR/ (graded by `autograd-course check DIR`), your\n"
    "replaced versions in DIR/backups/ (`autograd-course reset`)."
)
OTHERS_NOTE = (
    "Running a class: `autograd-course help instructor`.\n"
    "Maintaining the course: `autograd-course help maintainer`."
)


class _CourseParser(argparse.ArgumentParser):
    """The top-level parser: its epilog (the course map, timed from the notebooks) is built on --help only.

    A command never pays for reading every lesson, and an install without lessons (the Gradescope
    bundle) still runs its commands.
    """

    @property
    def epilog(self) -> str:
        return f"{course_map_text()}\n\n{WORKSPACE_NOTE}\n\n{OTHERS_NOTE}"

    @epilog.setter
    def epilog(self, _value: str | None) -> None:  # argparse assigns one in __init__
        pass


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand found in autograd_course.commands; its help lists a
    learner's commands only (the others run all the same, and `help instructor` lists them)."""
    parser = _CourseParser(
        prog="autograd-course",
        description="Autograd Debugging: a course on finding and fixing PyTorch autograd bugs.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # Subcommands get a plain parser: the course map is the top-level help's epilog, not theirs.
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=argparse.ArgumentParser)
    for module in command_modules():
        listed = {"help": module.HELP} if module.AUDIENCE == "learner" else {}
        child = sub.add_parser(module.NAME, description=module.HELP, **listed)
        module.add_arguments(child)
        child.set_defaults(_main=module.main)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "_main", None) is None:
        parser.print_help()
        return 0
    try:
        code = int(args._main(args) or 0)
        sys.stdout.flush()  # here, where a reader that left can be handled, not at interpreter exit
        return code
    except CommandError as exc:  # the one place a command's failure is printed
        sys.stdout.flush()
        print("\n".join(exc.lines()), file=sys.stderr)
        return exc.code
    except BrokenPipeError:  # `autograd-course progress | head`: the reader left, which is fine
        _quiet_stdout()
        return 0


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's final flush cannot raise BrokenPipeError again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
