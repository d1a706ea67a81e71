"""Subcommands of `autograd-course`, one module each: the learner's here, the instructor's and the
maintainer's in autograd_instructor.commands (present only where the whole course is installed).

A command module defines NAME, AUDIENCE, HELP, add_arguments(parser) and main(args) -> int; the CLI finds
every module in the two command packages, so a new command is a new file. Bad input raises
`autograd_course.protocol.CommandError`, which the CLI prints.
"""

from __future__ import annotations

import importlib
import pkgutil
from importlib.util import find_spec
from types import ModuleType

# The instructor's part, found by name where it is installed: the learner's part never imports it.
INSTRUCTOR_COMMANDS = "autograd_instructor.commands"

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
    packages = [importlib.import_module(__name__)]
    if find_spec(INSTRUCTOR_COMMANDS.partition(".")[0]) is not None:
        packages.append(importlib.import_module(INSTRUCTOR_COMMANDS))
    found = [
        importlib.import_module(f"{package.__name__}.{m.name}")
        for package in packages
        for m in pkgutil.iter_modules(package.__path__)
        if not m.name.startswith("_")
    ]
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
    if not chosen:  # a learner's install (a graded release's course/): the instructor's part is not here
        return (
            f"{AUDIENCES[audience]}: none in this install. They come with the whole course "
            "(`pip install autograd-debugging-course[grade]`, or the course's repository), which adds "
            "the instructor's part, autograd_instructor."
        )
    width = max(len(m.NAME) for m in chosen)
    return "\n".join([f"{AUDIENCES[audience]}:", *(f"  {m.NAME:<{width}}  {m.HELP}" for m in chosen)])
