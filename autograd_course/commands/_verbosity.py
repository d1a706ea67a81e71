"""The --quiet/--verbose pair of the instructor and maintainer tools (`grade`, `run`), and their logging."""

from __future__ import annotations

import argparse
import logging
import sys

__all__ = ["add_verbosity", "configure_logging"]


def add_verbosity(parser: argparse.ArgumentParser) -> None:
    """-q/--quiet (warnings and errors only) and -v/--verbose (debug detail); default: progress lines."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-q", "--quiet", action="store_true", help="log only warnings and errors")
    group.add_argument("-v", "--verbose", action="store_true", help="log debug detail too")


class _Stderr(logging.StreamHandler):
    """A handler that writes to whatever sys.stderr is at the time (pytest swaps it per test)."""

    @property
    def stream(self):  # type: ignore[override]
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass


def configure_logging(args: argparse.Namespace, logger: str) -> logging.Logger:
    """Send the named logger's records to stderr at the level --quiet/--verbose chose."""
    level = logging.WARNING if args.quiet else logging.DEBUG if args.verbose else logging.INFO
    log = logging.getLogger(logger)
    log.setLevel(level)
    if not any(isinstance(h, _Stderr) for h in log.handlers):
        handler = _Stderr()
        handler.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(handler)
    log.propagate = False
    return log
