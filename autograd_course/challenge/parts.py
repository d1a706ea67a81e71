"""The exercise parts, declared once as data (learntools-style) and shared by every exercise.

A part says what the learner writes (the names the check reads), the stub the exercise shows, the
pure verdict function, its hints and its solution (both rendered for the learner's variant), and its
points. The check view (exercise.py), the generator, the grader's export and the tests all read PARTS.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from autograd_course.challenge.catalogue import BUGS, FIXABLE, exercise, fixed_code
from autograd_course.challenge.contract import judge_evidence
from autograd_course.challenge.draw import variant_for
from autograd_course.challenge.fixcheck import CHECKS, judge_fix
from autograd_course.challenge.variants import Variant
from autograd_course.challenge.verdict import NotAttempted, Outcome, Verdict

__all__ = [
    "PARTS",
    "PartSpec",
    "answers_of",
    "function_source",
    "part1_verdict",
    "part2_verdict",
    "resolve_variant",
]


def resolve_variant(exercise_id: str, variant: Variant | str | None) -> Variant:
    """A Variant as given, or the one variant_for draws for a learner id (None: the default)."""
    return variant if isinstance(variant, Variant) else variant_for(variant, exercise_id)


def part1_verdict(
    exercise_id: str, variant: Variant | str | None, stage: str | None, summary: dict | None, seed: int = 0
) -> Verdict:
    """Part 1's verdict from plain data: the stage's name and the evidence summary (None: not attempted)."""
    if summary is None:
        return Verdict(
            exercise_id, 1, Outcome.NOT_ATTEMPTED, "set `stage` and `evidence`, then run this cell again"
        )
    chosen = resolve_variant(exercise_id, variant)
    ok, message = judge_evidence(chosen, seed, stage, summary)
    if ok:
        message = f"{message}. {BUGS[chosen.bug].lesson}"
    return Verdict(exercise_id, 1, Outcome.CORRECT if ok else Outcome.INCORRECT, message)


def part2_verdict(exercise_id: str, variant: Variant | str | None, trace: dict, seed: int = 0) -> Verdict:
    """Part 2's verdict from a recorded fix trace, with one (name, passed) entry per check in CHECKS."""
    exercise(exercise_id)
    if not isinstance(trace, dict) or trace.get("not_attempted"):
        return Verdict(
            exercise_id, 2, Outcome.NOT_ATTEMPTED, "define your fixed function(s), then run this cell again"
        )
    resolve_variant(exercise_id, variant)  # validates the exercise/variant pair; the checks need no more
    checks, message = judge_fix(seed, trace)
    outcome = Outcome.CORRECT if all(ok for _, ok in checks) else Outcome.INCORRECT
    return Verdict(exercise_id, 2, outcome, message, checks)


def function_source(code: str, name: str) -> str:
    """The source of one top-level function in rendered broken (or fixed) code."""
    start = code.index(f"def {name}(")
    end = code.find("\n\n\n", start)
    return code[start : end if end >= 0 else len(code)].rstrip("\n")


def _part1_hints(variant: Variant) -> tuple[str, ...]:
    return BUGS[variant.bug].hints


def _part1_solution(variant: Variant) -> str:
    return BUGS[variant.bug].proof


def _part2_hints(variant: Variant) -> tuple[str, ...]:
    where = BUGS[variant.bug].where
    fixed = next(k for k, v in FIXABLE.items() if v == where)
    return (
        "Fix only what your part-1 evidence points at: define fixed_setup, fixed_compute_loss or fixed_step "
        "(one is enough); the check runs the broken code with yours in place of the broken one.",
        f"The bug lives in {where}: copy it from the code above, name it {fixed} and change what breaks.",
    )


def _part2_solution(variant: Variant) -> str:
    where = BUGS[variant.bug].where
    fixed = next(k for k, v in FIXABLE.items() if v == where)
    return function_source(fixed_code(variant), where).replace(f"def {where}(", f"def {fixed}(", 1)


@dataclass(frozen=True)
class PartSpec:
    """One exercise part: what the learner writes, the stub, the check, hints, solution and points."""

    number: int
    title: str
    task: str  # Markdown shown above the answer cell
    answers: tuple[str, ...]  # the names the check reads from the learner's namespace
    placeholder: str  # the exercise's stub for the answer region
    hints: Callable[[Variant], tuple[str, ...]]
    solution: Callable[[Variant], str]
    points: int  # part 2 splits them evenly over its checks

    def __repr__(self) -> str:
        return f"PartSpec({self.number}: {self.title!r}, {self.points} points)"


PARTS: dict[int, PartSpec] = {
    1: PartSpec(
        1,
        "Prove where it breaks",
        "Run the broken code with the helpers, then set `stage` to the `Stage` where it fails and `evidence` "
        "to what proves it (see the evidence contract above).",
        ("stage", "evidence"),
        "# Your code: run the broken setup and step with the helpers.\n"
        "stage = NotAttempted  # a helpers.Stage\n"
        "evidence = NotAttempted  # what proves it: see the evidence contract",
        _part1_hints,
        _part1_solution,
        2,
    ),
    2: PartSpec(
        2,
        "Fix it",
        "Define the fixed version of the function that holds the bug (`fixed_setup`, `fixed_compute_loss` or "
        "`fixed_step`, same arguments as the broken one). The check runs the broken code with yours "
        f"instead of the broken one(s) for 40 steps and judges what the training did: {', '.join(CHECKS)}.",
        tuple(FIXABLE),
        "# Your code: define one or more of\n"
        "#   fixed_setup(seed, device) -> (model, optimizer)\n"
        "#   fixed_compute_loss(model, inputs, targets) -> loss\n"
        "#   fixed_step(model, optimizer, inputs, targets) -> loss",
        _part2_hints,
        _part2_solution,
        len(CHECKS),
    ),
}


def answers_of(part: int, namespace: dict[str, Any]) -> dict[str, Any]:
    """The part's answers present in a namespace (placeholders and missing names left out)."""
    return {
        n: namespace[n] for n in PARTS[part].answers if namespace.get(n, NotAttempted) is not NotAttempted
    }
