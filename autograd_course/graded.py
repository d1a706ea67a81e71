"""The challenge in graded mode, inside the learner's notebook: the broken code, hints, format checks.

A graded release (`autograd-course release --graded`) ships no catalogue, no reference proof or
repair and no draw: each learner's broken code and hints are rendered by the instructor's install into
`graded-variants.json` beside the notebooks, each sealed with that learner's token (sealed.py), which
only that learner's kernel holds (AUTOGRAD_COURSE_TOKEN, or `token` in course.json). This module
reads that file and nothing of the challenge package, so it works in a learner install that has no
answers. Part 1's check runs the answer cell on its own, as the grader does, on the learner's own code
(graded_part1.py), and says what would fail there, down to evidence that does not prove the stage
named (the public contract, proving/proofs.py), never whether the code fails at that stage. Part 2's check
runs the behaviour checks the grader runs (autograd_course.fixing: true_loss, no_carryover,
params_move, loss_falls) on the learner's own code and seed, replaying each update with an optimizer
of the class and settings the given code builds (every variant's intended one), and names every one
that fails; `autograd-course grade` runs them again on seeds the learner never saw and gives the
verdict.
"""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from autograd_course.checks import Note, ProblemView, recorded
from autograd_course.checks.verdict import Outcome, Verdict
from autograd_course.fixing.fixcheck import CHECKS, judge_trace
from autograd_course.fixing.fixrun import train
from autograd_course.graded_part1 import part1_behaviour
from autograd_course.harness_core import FIX_SIGNATURES, NotAttempted, broken_namespace
from autograd_course.learner import read_learner
from autograd_course.protocol import LEARNER_FILE
from autograd_course.sealed import entry_key, unseal
from helpers import Diagnosis, Stage

__all__ = [
    "TOKEN_ENV",
    "VARIANTS_FILE",
    "GradedChallenge",
    "GradedPart",
    "NotAttempted",
    "challenge",
    "read_token",
]

VARIANTS_FILE = "graded-variants.json"
TOKEN_ENV = "AUTOGRAD_COURSE_TOKEN"  # the learner's token for a graded release: opens their entry only
_GRADED = (
    "the form is right. This is a graded notebook: `autograd-course grade` runs this answer cell, after "
    "the earlier cells that define what it uses, on broken code and seeds you have not seen, and gives "
    "the verdict. Make sure the cell runs after the imports cell and those cells."
)


_BEHAVES = (
    f"on your own code, the fixed training passes {', '.join(CHECKS)}. This is a graded notebook: "
    "`autograd-course grade` runs the same checks, replaying each update with your code's optimizer and "
    "its settings as here, on seeds you have not seen, and gives the verdict. Make sure the cell runs "
    "after the imports cell and the earlier cells that define what it uses."
)


def read_token(start_dir: str | Path | None = None) -> str | None:
    """The learner's token: $AUTOGRAD_COURSE_TOKEN, else `token` in the nearest course.json, else None."""
    env = os.environ.get(TOKEN_ENV, "").strip()
    if env:
        return env
    here = Path(start_dir if start_dir is not None else Path.cwd()).resolve()
    for folder in (here, *here.parents):
        try:
            token = json.loads((folder / LEARNER_FILE).read_text(encoding="utf-8")).get("token")
        except (OSError, ValueError, AttributeError):
            continue
        return token.strip() if isinstance(token, str) and token.strip() else None
    return None


def _entry(exercise_id: str, token: str | None, folder: Path) -> dict:
    path = folder / VARIANTS_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: a graded notebook needs its release's {VARIANTS_FILE}")
    data = json.loads(path.read_text(encoding="utf-8"))
    if not token:
        raise LookupError(f"no learner token: set {TOKEN_ENV} to the token your instructor gave you")
    sealed = data["learners"].get(entry_key(token))
    if sealed is None:
        raise LookupError(f"this release has no entry for your token ({TOKEN_ENV}): ask your instructor")
    entry = unseal(sealed, token).get(exercise_id)
    if entry is None:
        raise LookupError(f"this release has no {exercise_id} for you: ask your instructor")
    return entry


class GradedPart(ProblemView):
    """One part in graded mode: a format check, hints, and no solution."""

    def __init__(self, owner: GradedChallenge, number: int) -> None:
        super().__init__()
        self.owner, self.number = owner, number
        self.exercise_id, self.part_number = owner.exercise_id, number
        self.usage = owner.usage

    def verdict(self) -> Verdict:
        """The form of the answer: not attempted, incorrect form, or 'graded by grade' (never right/wrong)."""
        if self.number == 1:
            outcome, message = _part1_form(self.owner.namespace)
            if outcome is Outcome.CORRECT:
                outcome, message = part1_behaviour(self.owner.namespace, self.owner.entry["code"]) or (
                    outcome,
                    message,
                )
        else:
            outcome, message = _part2_form(self.owner.namespace)
            if outcome is Outcome.CORRECT:
                outcome, message = _part2_behaviour(self.owner.namespace, self.owner.entry["code"])
        return Verdict(self.exercise_id, self.number, outcome, message)

    def hints(self) -> tuple[str, ...]:
        return tuple(self.owner.entry[f"hints{self.number}"])

    def solution_text(self) -> str:
        return "There is no solution in a graded notebook: your instructor's grader gives the verdict."

    @recorded("check")
    def check(self) -> tuple[int, Verdict | Note]:
        """Show the form of the answer; a well-formed one is 'graded by your instructor', never 'correct'."""
        self.last = self.verdict()
        if self.last.outcome is Outcome.CORRECT:
            return 1, Note(f"{self.label} · graded:", self.last.message)
        return 1, self.last

    def __repr__(self) -> str:
        return f"GradedPart({self.exercise_id} part {self.number})"


def _part1_form(ns: dict[str, Any]) -> tuple[Outcome, str]:
    stage, evidence = ns.get("stage", NotAttempted), ns.get("evidence", NotAttempted)
    if stage is NotAttempted or evidence is NotAttempted:
        return Outcome.NOT_ATTEMPTED, "set `stage` and `evidence`, then run this cell again"
    if not isinstance(stage, Stage):
        return Outcome.INCORRECT, f"`stage` must be a helpers.Stage member, got {stage!r}"
    items = evidence if isinstance(evidence, list | tuple) else [evidence]
    if items and all(isinstance(i, Diagnosis) for i in items):
        return Outcome.INCORRECT, "a Diagnosis is the doctor's verdict, not your proof"
    return Outcome.CORRECT, _GRADED


def _part2_form(ns: dict[str, Any]) -> tuple[Outcome, str]:
    defined = {n: ns[n] for n in FIX_SIGNATURES if n in ns}
    if not defined:
        return Outcome.NOT_ATTEMPTED, "define fixed_setup, fixed_compute_loss or fixed_step"
    for name, function in defined.items():
        if not callable(function):
            return Outcome.INCORRECT, f"`{name}` must be a function (def {name}(...): ...)"
        signature = inspect.signature(function)
        try:  # the grader calls it positionally: the learner's own parameter names are fine
            signature.bind(*FIX_SIGNATURES[name])
        except TypeError:
            params = ", ".join(signature.parameters)
            return Outcome.INCORRECT, f"`{name}` takes ({', '.join(FIX_SIGNATURES[name])}), got ({params})"
    return Outcome.CORRECT, _GRADED


def _given_update(code: str, answers: dict[str, Callable], seed: int) -> Callable[[], tuple] | None:
    """The replay's setup, from the given code alone: the model the fix trains, with an optimizer of the
    class and settings the given setup builds (every variant's intended optimizer is its given one, over
    every parameter, lr as each step ran it). None when the given setup raises: no replay then."""
    given = broken_namespace(code, "<broken code>")
    try:
        with torch.random.fork_rng(devices=[]):
            _, optimizer = given["broken_setup"](seed, "cpu")
    except Exception:  # a setup whose bug raises: its optimizer is not there to copy
        return None
    build, kind = answers.get("fixed_setup", given["broken_setup"]), type(optimizer)
    accepts = inspect.signature(kind).parameters  # defaults also hold flags no constructor takes
    settings = {k: v for k, v in optimizer.defaults.items() if k in accepts}
    try:
        kind([torch.zeros(1, requires_grad=True)], **settings)
    except Exception:  # an optimizer this cannot rebuild: no replay, as without the reference
        return None

    def setup() -> tuple:
        with torch.random.fork_rng(devices=[]):
            model, _ = build(seed, "cpu")
        return model, kind(model.parameters(), **settings)

    return setup


def _part2_behaviour(ns: dict[str, Any], code: str) -> tuple[Outcome, str]:
    """The grader's behaviour checks on the learner's own code and seed (no reference needed)."""
    seed = ns.get("seed", 0) if isinstance(ns.get("seed"), int) else 0
    answers = {n: ns[n] for n in FIX_SIGNATURES if n in ns}
    trace = train(code, "<broken code>", answers, seed)
    judged = judge_trace(seed, trace, _given_update(code, answers, seed))
    failing = [f"{n} {judged.status[n]}" for n in CHECKS if judged.status[n] != "passed"]
    if all(judged.status[n] == "not_run" for n in CHECKS):
        return Outcome.INCORRECT, f"on your own code: {judged.message} (no check could run)"
    if failing:
        return Outcome.INCORRECT, f"on your own code: {', '.join(failing)}: {judged.message}"
    return Outcome.CORRECT, _BEHAVES


class GradedChallenge:
    """One exercise of a graded release bound to a notebook's namespace."""

    def __init__(
        self,
        exercise_id: str,
        namespace: dict[str, Any],
        learner: str | None,
        folder: Path,
        token: str | None = None,
    ) -> None:
        self.exercise_id, self.namespace, self.learner = exercise_id, namespace, learner
        self.entry = _entry(exercise_id, token, folder)
        self.usage: list[dict] = []
        self.mode = "graded"
        self.part1, self.part2 = GradedPart(self, 1), GradedPart(self, 2)

    def broken(self) -> tuple[Callable, Callable, Callable]:
        """(broken_setup, compute_loss, broken_step) compiled from this learner's code."""
        ns = broken_namespace(self.entry["code"], "<broken code>")  # the release's own code
        return ns["broken_setup"], ns["compute_loss"], ns["broken_step"]

    def code(self) -> str:
        """The source of the broken code."""
        return self.entry["code"]

    def __repr__(self) -> str:
        return f"GradedChallenge({self.exercise_id}, learner {self.learner!r}, graded)"


def challenge(exercise_id: str, namespace: dict[str, Any], folder: str | Path = ".") -> GradedChallenge:
    """The graded exercise bound to a notebook's globals(); its code comes from the release's file."""
    return GradedChallenge(exercise_id, namespace, read_learner(), Path(folder), read_token(folder))
