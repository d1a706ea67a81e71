"""Part 1's graded check: the answer cell run on its own, as the grader runs it, on the learner's code.

The grader runs only the answer cell, in a fresh kernel, with the toolkit's names, the broken code and
the problem (proving/proofrun.py). This check runs the same harness on the learner's own code and seed
in the learner's kernel, with what the learner's install has, and says what would fail there: a name
the cell uses but does not define, an error, a `stage` that is no Stage, evidence the grader cannot
count (an object it cannot read, an error the cell raised itself). It never says whether the stage is
right: the grader judges that against its own run of code the learner has not seen.
"""

from __future__ import annotations

import secrets
from typing import Any

import torch

from autograd_course.checks.verdict import Outcome
from autograd_course.proving import proofrun

__all__ = ["answer_cell", "part1_behaviour"]

_CHECK = ".check()"


def answer_cell(ns: dict[str, Any]) -> str | None:
    """The last cell run before this one that sets `stage` and `evidence` (IPython's history), or None."""
    history = ns.get("In")
    if not isinstance(history, list):
        return None
    for source in reversed(history[:-1]):
        if isinstance(source, str) and "stage" in source and "evidence" in source and _CHECK not in source:
            return source
    return None


def part1_behaviour(ns: dict[str, Any], code: str) -> tuple[Outcome, str] | None:
    """What the grader's run of the answer cell on its own would find wrong, or None when nothing is
    (or when the cell cannot be found or rerun here: a cell magic)."""
    source = answer_cell(ns)
    if source is None or "get_ipython()" in source:
        return None
    seed = ns["seed"] if isinstance(ns.get("seed"), int) else 0
    name = f"<broken code {secrets.token_hex(8)}>"
    proofrun.warm_up(code, name)  # torch's lazy set-up is not the answer's change
    with torch.random.fork_rng(devices=[]):
        run = proofrun.prove(source, code, name, seed)
    return _told(run)


def _raised(error: dict) -> str:
    where = f" on line {error['line']}" if error.get("line") else ""
    return f"{error['name']}{where}: {error['message']}"


_ALONE = "Run on its own, as the grader runs it (a fresh kernel, only this cell), your answer cell"


def _told(run: dict) -> tuple[Outcome, str] | None:
    if run["changed"] or run["reached"]:
        what = ", ".join([*run["changed"], *run["reached"]])
        return Outcome.INCORRECT, f"{_ALONE} changes torch or the toolkit, or reaches outside: {what}"
    if run["not_attempted"]:
        if run["error"]:
            return Outcome.INCORRECT, (
                f"{_ALONE} raised {_raised(run['error'])} before setting `stage` and `evidence`. "
                "The grader runs no other cell: define in this cell everything it uses (the model, "
                "the optimizer, your own functions)"
            )
        return Outcome.INCORRECT, f"{_ALONE} leaves `stage` or `evidence` unset"
    if run["stage"] is None:
        return Outcome.INCORRECT, "`stage` must be a helpers.Stage member"
    return _uncountable(run["summary"] or {})


def _uncountable(summary: dict) -> tuple[Outcome, str] | None:
    items = summary.get("items", []) if summary.get("type") == "list" else [summary]
    for item in items:
        if item.get("type") == "unknown":
            return Outcome.INCORRECT, (
                f"the evidence holds a {item.get('name')}, which the grader cannot read: use the toolkit's "
                "reports, an error the broken code raised, a number or a list of them"
            )
        if item.get("type") in ("error", "NonFiniteError") and item.get("origin") not in proofrun.RAISED_BY:
            return Outcome.INCORRECT, (
                "the evidence holds an error the broken code did not raise (raised by your cell, or never "
                "raised): the grader counts only errors raised by the broken code or the toolkit"
            )
    return None
