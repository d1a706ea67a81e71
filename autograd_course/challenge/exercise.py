"""The check API used inside the notebooks: `ex = challenge("A")`, `ex.part1.check()`, hints, solutions."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any

from autograd_course.challenge.catalogue import BUGS, Exercise, build_broken, exercise
from autograd_course.challenge.evidence import judge_stage, stage_name, summarize
from autograd_course.challenge.fixcheck import collect_fix_trace, judge_fix
from autograd_course.challenge.verdict import Incorrect, NotAttempted, NotAttemptedError, Outcome, Verdict

__all__ = ["Challenge", "Part", "challenge", "fix_trace_or_error", "part1_verdict", "part2_verdict"]

ANSWERS = {1: ("stage", "evidence"), 2: ("fixed_setup", "fixed_step")}


def _in_jupyter() -> bool:
    shell = sys.modules.get("IPython") and sys.modules["IPython"].get_ipython()
    return bool(shell) and hasattr(shell, "kernel")


def _show(obj: Any, text: str) -> None:
    if _in_jupyter():
        from IPython.display import display

        display(obj)
    else:
        print(text)


def part1_verdict(ex: Exercise, seed: int, stage: Any, evidence: Any) -> Verdict:
    """Judge part 1 from the learner's answers (summarised here, judged by trusted code)."""
    if stage is NotAttempted or evidence is NotAttempted:
        return Verdict(
            ex.id, 1, Outcome.NOT_ATTEMPTED, "set `stage` and `evidence`, then run this cell again"
        )
    ok, message = judge_stage(ex.bug, seed, stage_name(stage), summarize(evidence))
    return Verdict(ex.id, 1, Outcome.CORRECT if ok else Outcome.INCORRECT, message)


def fix_trace_or_error(fixed_setup: Callable, fixed_step: Callable, seed: int, device: str) -> dict:
    """collect_fix_trace, with an exception from the learner's code turned into an error entry."""
    if not (callable(fixed_setup) and callable(fixed_step)):
        return {"error": "fixed_setup and fixed_step must be functions"}
    try:
        return collect_fix_trace(fixed_setup, fixed_step, seed, device)
    except NotAttemptedError:
        return {"not_attempted": True}
    except Exception as exc:  # the learner's code failed: report it as the observation
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return {"error": f"your fixed training raised {type(exc).__name__}: {first[:160]}"}


def part2_verdict(ex: Exercise, seed: int, trace: dict) -> Verdict:
    """Judge part 2 from a recorded fix trace."""
    if trace.get("not_attempted"):
        return Verdict(
            ex.id, 2, Outcome.NOT_ATTEMPTED, "define fixed_setup and fixed_step, then run this cell again"
        )
    ok, message = judge_fix(ex.bug, seed, trace)
    return Verdict(ex.id, 2, Outcome.CORRECT if ok else Outcome.INCORRECT, message)


class Part:
    """One graded part of an exercise: check(), hint(level), solution()."""

    def __init__(self, owner: Challenge, number: int) -> None:
        self.owner, self.number = owner, number

    def _answers(self, given: dict[str, Any]) -> list[Any]:
        frame = inspect.currentframe()
        caller = frame.f_back.f_back.f_globals if frame and frame.f_back and frame.f_back.f_back else {}
        return [given.get(n, caller.get(n, NotAttempted)) for n in ANSWERS[self.number]]

    def check(self, **answers: Any) -> None:
        """Check this part from the notebook's variables (or keyword answers); raise unless correct."""
        ex, seed = self.owner.exercise, self.owner.seed
        values = self._answers(answers)
        if self.number == 1:
            verdict = part1_verdict(ex, seed, *values)
        elif NotAttempted in values:
            verdict = Verdict(
                ex.id, 2, Outcome.NOT_ATTEMPTED, "define fixed_setup and fixed_step, then run again"
            )
        else:
            verdict = part2_verdict(ex, seed, fix_trace_or_error(*values, seed, self.owner.device))
        _show(verdict, verdict.text())
        if verdict.outcome is Outcome.NOT_ATTEMPTED:
            raise NotAttemptedError(verdict)
        if verdict.outcome is Outcome.INCORRECT:
            raise Incorrect(verdict)

    def hint(self, level: int = 1) -> None:
        """Print hint number `level` (1 is the gentlest)."""
        bug = BUGS[self.owner.exercise.bug]
        hints = bug.hints if self.number == 1 else bug.fix_hints
        if not (isinstance(level, int) and 1 <= level <= len(hints)):
            raise ValueError(f"expected a hint level from 1 to {len(hints)}, got {level!r}")
        print(f"Hint {level}/{len(hints)}: {hints[level - 1]}")

    def solution(self) -> None:
        """Print the reference solution of this part."""
        from autograd_course.challenge.notebooks import solution_text

        try:
            text = solution_text(self.owner.exercise.id, self.number)
        except (FileNotFoundError, LookupError) as exc:
            print(f"No solution available: {exc}")
            return
        print(f"Solution, part {self.number}:\n{text}")

    def __repr__(self) -> str:
        return f"Part({self.owner.exercise.id} part {self.number})"


class Challenge:
    """One exercise in a notebook: its broken code, part1 and part2."""

    def __init__(self, exercise_id: str, seed: int = 0, device: str = "cpu") -> None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"expected an int seed, got {seed!r}")
        self.exercise = exercise(exercise_id)
        self.seed, self.device = seed, str(device)
        self.part1, self.part2 = Part(self, 1), Part(self, 2)

    def broken(self) -> tuple[Callable, Callable]:
        """(broken_setup, broken_step): the code with the planted bug."""
        return build_broken(self.exercise.bug)

    def code(self) -> str:
        """The source of broken_setup and broken_step."""
        bug = BUGS[self.exercise.bug]
        return bug.setup + "\n\n" + bug.step

    def __repr__(self) -> str:
        ex = self.exercise
        return f"Challenge({ex.id}: {ex.title!r}, seed={self.seed}, device={self.device!r})"


def challenge(exercise_id: str, seed: int = 0, device: str = "cpu") -> Challenge:
    """The exercise with this id (A-E, M1-M3) for a seed and device."""
    return Challenge(exercise_id, seed, device)
