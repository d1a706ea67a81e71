"""Entry point of `autograd-course`: finds the subcommands and dispatches to them."""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

from autograd_course import commands
from autograd_course.course import course_map_text

__all__ = ["build_parser", "course_map_text", "main"]

WORKSPACE_NOTE = (
    "Your workspace (`autograd-course start [DIR]`, default my-work/): the lessons in DIR/lessons/,\n"
    "the challenge notebooks at the top of DIR/ (graded by `autograd-course check DIR`), your\n"
    "replaced versions in DIR/backups/ (`autograd-course reset`)."
)

# Learner commands first, then instructor, then maintainer; others alphabetically after.
_ORDER = ["learn", "start", "check", "progress", "reset", "grade", "run", "links", "map"]


def _command_modules() -> list:
    names = [m.name for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_")]
    names.sort(key=lambda n: (_ORDER.index(n) if n in _ORDER else len(_ORDER), n))
    return [importlib.import_module(f"{commands.__name__}.{n}") for n in names]


class _CourseParser(argparse.ArgumentParser):
    """The top-level parser: its epilog (the course map, timed from the notebooks) is built on --help only.

    A command never pays for reading every lesson, and an install without lessons (the Gradescope
    bundle) still runs its commands.
    """

    @property
    def epilog(self) -> str:
        return f"{course_map_text()}\n\n{WORKSPACE_NOTE}"

    @epilog.setter
    def epilog(self, _value: str | None) -> None:  # argparse assigns one in __init__
        pass


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand found in autograd_course.commands."""
    parser = _CourseParser(
        prog="autograd-course",
        description="Autograd Debugging: a course on finding and fixing PyTorch autograd bugs.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # Subcommands get a plain parser: the course map is the top-level help's epilog, not theirs.
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=argparse.ArgumentParser)
    for module in _command_modules():
        child = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
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
