"""Part 1's graded check: the answer cell run as the grader runs it, on the learner's own code.

The grader runs the answer cell in a fresh kernel, with the toolkit's names, the broken code and the
problem (proving/proofrun.py), after the earlier cells that define the names it uses
(answer_cells.py). This check finds the same cells in the kernel's history (as typed, cell magics
included), runs the same harness on the learner's own code and seed in the learner's kernel, with what
the learner's install has, and says what would fail there: a name no cell defines, an error and its
cell and line, a `stage` that is no Stage, evidence the grader cannot count (an object it cannot read,
an error the cell raised itself, values no run of the learner's code produced: matched as the grader
matches them, proving/kinds.py, against a run of the learner's own code). It never says whether the
stage is right: the grader judges that against its own run of code the learner has not seen.
"""

from __future__ import annotations

import contextlib
import secrets
from typing import Any

import torch

import helpers
from autograd_course.answer_cells import GIVEN, earlier_cells, python_of
from autograd_course.checks.verdict import Outcome
from autograd_course.proving import proofrun
from autograd_course.proving.kinds import describe, is_real, untied
from autograd_course.proving.proofs import unproven
from autograd_course.proving.trace import REFERENCE_STEPS, BrokenTrace, behaviour, trace_code

__all__ = ["answer_cell", "part1_behaviour"]

_CHECK = ".check()"
NOTEBOOK_SEED = 0  # the seed a graded notebook's parameters cell sets: the run the learner sees
ALIKE_TRIES = 32  # fresh seeds tried for one alike; past that, the last one


def _history(ns: dict[str, Any]) -> list | None:
    """The cells run so far as typed (IPython's raw history, magics included), else as run (`In`)."""
    shell = ns.get("get_ipython")
    manager = getattr(shell(), "history_manager", None) if callable(shell) else None
    raw = getattr(manager, "input_hist_raw", None)
    history = raw if isinstance(raw, list) and raw else ns.get("In")
    return history if isinstance(history, list) else None


def answer_cell(ns: dict[str, Any]) -> tuple[str, list[tuple[int, str]]] | None:
    """The last cell run before this one that sets `stage` and `evidence` (IPython's history), with the
    cells run before it (number in the history, source), or None."""
    history = _history(ns)
    if history is None:
        return None
    for k in reversed(range(len(history) - 1)):
        source = history[k]
        if isinstance(source, str) and "stage" in source and "evidence" in source and _CHECK not in source:
            return source, [(i, s) for i, s in enumerate(history[:k]) if isinstance(s, str) and s.strip()]
    return None


def _python(cells: list[tuple[int, str]]) -> list[tuple[int, str]]:
    found = []
    for number, source in cells:
        with contextlib.suppress(SyntaxError):
            found.append((number, python_of(source)))
    return found


def part1_behaviour(ns: dict[str, Any], code: str) -> tuple[Outcome, str] | None:
    """What the grader's run of the answer cell (after the earlier cells it needs) on the learner's own
    code would find wrong, or None when nothing is (or when the cell cannot be found or read)."""
    found = answer_cell(ns)
    if found is None:
        return None
    try:
        source = python_of(found[0])
    except SyntaxError:
        return None
    prelude = earlier_cells(_python(found[1]), source, GIVEN | set(helpers.__all__))
    seed, trace = alike_seed(code)
    name = f"<broken code {secrets.token_hex(8)}>"
    proofrun.warm_up(code, name)  # torch's lazy set-up is not the answer's change
    with torch.random.fork_rng(devices=[]):
        run = proofrun.prove(source, code, name, seed, prelude)
    if told := _told(run):
        return told
    summary = run["summary"] or {}
    return _unreal(summary, trace, seed) or _unproven(run["stage"], summary, trace)


def alike_seed(code: str) -> tuple[int, BrokenTrace]:
    """A fresh seed on which the code behaves as on the notebook's (`behaviour`), and its trace.

    Not the notebook's own seed: evidence kept from a run of it (a pickled report) must not pass here
    when the grader's hidden seeds would fail it. Nor any seed: on some, a bug does not show in the
    first steps (the log of a ReLU output that happens to stay above zero), and a right proof could
    not pass. The grader, too, runs only seeds where the bug shows."""
    wanted = behaviour(trace_code(code, NOTEBOOK_SEED))
    for _ in range(ALIKE_TRIES):
        seed = 1 + secrets.randbelow(2**31 - 1)
        trace = trace_code(code, seed)
        if behaviour(trace) == wanted:
            break
    return seed, trace


def _unproven(stage: str, summary: dict, trace: BrokenTrace) -> tuple[Outcome, str] | None:
    """Why real evidence does not prove the stage the learner named, by the public contract (None when
    it does). Whether the code fails at that stage is the grader's to say: this never tells the stage."""
    why = unproven(stage, summary, trace, f"the evidence ({describe(summary)})")
    return None if why is None else (Outcome.INCORRECT, why)


def _unreal(summary: dict, trace: BrokenTrace, seed: int) -> tuple[Outcome, str] | None:
    """Why the evidence's values are not what a run of the learner's own code produces (None when they
    are): the grader counts evidence only when it matches its own run of the code it ran."""
    if is_real(summary, trace):
        return None
    return Outcome.INCORRECT, untied(summary) or (
        f"the evidence ({describe(summary)}) does not match what your broken code produces in its first "
        f"{REFERENCE_STEPS} steps with seed={seed}: compute it in the cell from a fresh "
        "broken_setup(seed, device), as the grader counts only values its own run of the code produces"
    )


def _raised(error: dict) -> str:
    where = f" on line {error['line']}" if error.get("line") else ""
    cell = f" in the cell you ran as [{error['cell']}], which it uses," if error.get("cell") else ""
    return f"{error['name']}{cell}{where}: {error['message']}"


_ALONE = (
    "Run as the grader runs it (a fresh kernel: this cell after the earlier cells that define what it "
    "uses), your answer cell"
)


def _told(run: dict) -> tuple[Outcome, str] | None:
    if run["changed"] or run["reached"]:
        what = ", ".join([*run["changed"], *run["reached"]])
        return Outcome.INCORRECT, f"{_ALONE} changes torch or the toolkit, or reaches outside: {what}"
    if run["not_attempted"]:
        if run["error"]:
            return Outcome.INCORRECT, (
                f"{_ALONE} raised {_raised(run['error'])} before setting `stage` and `evidence`. "
                "The grader runs only this cell and the earlier cells that define the names it uses: "
                "define everything it uses (the model, the optimizer, your own functions) in a cell "
                "before it or in it"
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
