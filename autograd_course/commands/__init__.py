"""Subcommands of `autograd-course`, one module each.

A command module defines NAME, AUDIENCE, HELP, add_arguments(parser) and main(args) -> int; the CLI finds
every module in this package, so a new command is a new file. Bad input raises
`autograd_course.protocol.CommandError`, which the CLI prints.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

# Who each command is for: `autograd-course --help` lists a learner's; `autograd-course help WHO` the others.
AUDIENCES = {
    "learner": "Commands for learning",
    "instructor": "Commands for running a class (instructors)",
    "maintainer": "Commands for maintaining the course",
}

# Within an audience, the order a newcomer meets the commands in; others follow alphabetically.
_ORDER = [
    "learn",
    "start",
    "check",
    "progress",
    "reset",
    "map",
    "help",
    "release",
    "collect",
    "class-progress",
]


def command_modules() -> list[ModuleType]:
    """Every command module, by audience (as AUDIENCES orders them), then in the order newcomers meet them."""
    found = [importlib.import_module(f"{__name__}.{m.name}") for m in pkgutil.iter_modules(__path__)]
    found = [m for m in found if not m.__name__.rpartition(".")[2].startswith("_")]
    rank = {who: k for k, who in enumerate(AUDIENCES)}

    def key(module: ModuleType) -> tuple:
        return (
            rank[module.AUDIENCE],
            _ORDER.index(module.NAME) if module.NAME in _ORDER else len(_ORDER),
            module.NAME,
        )

    return sorted(found, key=key)


def listing(audience: str) -> str:
    """The commands for one audience, a line each: name and what it does."""
    chosen = [m for m in command_modules() if audience == m.AUDIENCE]
    width = max(len(m.NAME) for m in chosen)
    return "\n".join([f"{AUDIENCES[audience]}:", *(f"  {m.NAME:<{width}}  {m.HELP}" for m in chosen)])
