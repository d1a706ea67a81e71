"""Entry point of `autograd-course`: finds the subcommands and dispatches to them."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from autograd_course import commands
from autograd_course.course import course_map_text

__all__ = ["build_parser", "course_map_text", "main"]

# Learner commands first, then instructor, then maintainer; others alphabetically after.
_ORDER = ["start", "check", "progress", "reset", "grade", "run", "links", "map"]


def _command_modules() -> list:
    names = [m.name for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_")]
    names.sort(key=lambda n: (_ORDER.index(n) if n in _ORDER else len(_ORDER), n))
    return [importlib.import_module(f"{commands.__name__}.{n}") for n in names]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand found in autograd_course.commands."""
    parser = argparse.ArgumentParser(
        prog="autograd-course",
        description="Autograd Debugging: a course on finding and fixing PyTorch autograd bugs.",
        epilog=course_map_text(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
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
    return int(args._main(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
