"""The exercise parts, declared once as data (learntools-style) and shared by every exercise.

A part says what the learner writes (the names the check reads), the stub the exercise shows, the
pure verdict function, its hints and its solution (both rendered for the learner's variant), and its
points. The check view (exercise.py), the generator, the grader's export and the tests all read PARTS.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import torch

from autograd_course.fixing.fixcheck import (
    CHECK_MEANINGS,
    CHECKS,
    FIX_STEPS,
    FixJudgement,
    collect_fix_trace,
    judge_trace,
    true_loss,
)
from autograd_course.global_rng import global_rng
from autograd_course.harness_core import broken_namespace
from autograd_instructor.challenge.catalogue import (
    BUGS,
    FIXABLE,
    build_broken,
    exercise,
    unrecorded_fixed_code,
)
from autograd_instructor.challenge.contract import judge_evidence
from autograd_instructor.challenge.draw import variant_for
from autograd_instructor.challenge.variants import Variant
from autograd_instructor.challenge.verdict import NotAttempted, Outcome, Verdict
from autograd_instructor.challenge.viewing import viewed

__all__ = [
    "PARTS",
    "PartSpec",
    "answers_of",
    "broken_failures",
    "broken_trace",
    "function_source",
    "given_problem",
    "judge_part2",
    "part1_verdict",
    "part2_verdict",
    "reference_namespace",
    "reference_reach",
    "reference_setup",
    "resolve_variant",
]


def resolve_variant(exercise_id: str, variant: Variant | str | None) -> Variant:
    """A Variant as given, or the one variant_for draws for a learner id (None: the default)."""
    return variant if isinstance(variant, Variant) else variant_for(variant, exercise_id)


def part1_verdict(
    exercise_id: str,
    variant: Variant | str | None,
    stage: str | None,
    summary: dict | None,
    seed: int = 0,
    missing: tuple[str, ...] = ("stage", "evidence"),
) -> Verdict:
    """Part 1's verdict from plain data: the stage's name and the evidence summary (None: not attempted)."""
    if summary is None:
        names = " and ".join(f"`{n}`" for n in missing or ("stage", "evidence"))
        return Verdict(exercise_id, 1, Outcome.NOT_ATTEMPTED, f"set {names}, then run this cell again")
    chosen = resolve_variant(exercise_id, variant)
    ok, message = judge_evidence(chosen, seed, stage, summary)
    if ok:
        message = f"{message}. {BUGS[chosen.bug].lesson}"
    return Verdict(exercise_id, 1, Outcome.CORRECT if ok else Outcome.INCORRECT, message)


def reference_namespace(variant: Variant, filename: str = "<reference>") -> dict:
    """The namespace of the code with the bug removed, compiled here (never the learner's code)."""
    return broken_namespace(unrecorded_fixed_code(variant), filename)


def reference_setup(variant: Variant, seed: int):
    """A callable building the code's own (model, optimizer) with the bug removed: the replay's optimizer."""
    namespace = reference_namespace(variant, "<reference setup>")

    def setup() -> tuple:
        with global_rng():
            return namespace["broken_setup"](seed, "cpu")

    return setup


@lru_cache(maxsize=64)
def reference_reach(variant: Variant, seed: int) -> float:
    """Where the code's intended training (the bug removed) ends on this seed: the true loss of its
    last weights, run here with the reference code, never the learner's (loss_falls' yardstick)."""
    namespace = reference_namespace(variant, "<reference training>")
    with global_rng():
        trace = collect_fix_trace(
            namespace["broken_setup"], namespace["broken_step"], seed, "cpu", watch=False
        )
    return true_loss(seed, trace)


@lru_cache(maxsize=64)
def broken_trace(variant: Variant, seed: int) -> dict:
    """The grader's own training of the broken code (no learner code anywhere near it)."""
    code = build_broken(variant)
    with global_rng():
        try:
            return collect_fix_trace(code["broken_setup"], code["broken_step"], seed, "cpu", watch=False)
        except Exception as exc:  # the broken code raises: it fails every check
            return {"error": f"{type(exc).__name__}: {str(exc)[:160]}"}


@lru_cache(maxsize=64)
def broken_failures(variant: Variant, seed: int) -> tuple[str, ...]:
    """The part-2 checks the broken code itself fails: the only ones a partial fix earns points for."""
    judged = judge_trace(
        seed, broken_trace(variant, seed), reference_setup(variant, seed), reference_reach(variant, seed)
    )
    return tuple(name for name in CHECKS if judged.status[name] != "passed")


def _same_numbers(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and torch.allclose(
            a.float(), b.float(), rtol=1e-4, atol=1e-6, equal_nan=True
        )
    return torch.allclose(
        torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64), equal_nan=True
    )


def given_problem(variant: Variant, seed: int, given: Any) -> str | None:
    """Why the given code, trained after the answer ran, differs from the grader's own run of it (None
    when it does not): the answer changed torch, the model or the optimizer instead of its functions."""
    ours = broken_trace(variant, seed)
    if not isinstance(given, dict):
        return "the given code's run after your cell was not recorded"
    if ("error" in ours) != ("error" in given):
        return "after your cell ran, the given code " + ("raised" if "error" in given else "no longer raises")
    if "error" in ours:
        return None
    try:
        same = len(ours["losses"]) == len(given["losses"]) and _same_numbers(ours["losses"], given["losses"])
        same = same and all(
            _same_numbers(ours["params"][-1][n], given["params"][-1][n]) for n in ours["names"]
        )
    except (KeyError, TypeError, IndexError, RuntimeError, ValueError):
        same = False
    return None if same else "after your cell ran, the given code trains differently than it does alone"


def judge_part2(
    exercise_id: str, variant: Variant | str | None, trace: Any, seed: int = 0, given: Any = None
) -> tuple[Verdict, FixJudgement]:
    """Part 2's verdict and every check's detail from a recorded fix trace, replayed with trusted code.

    An incorrect fix's `checks` list only the checks the broken code fails: partial credit counts
    what the fix repaired, never what the broken code already did (a correct fix lists them all).
    Checks that could not run are left out (they earn nothing and are `not_run` in the detail).
    given: the given code's own training, run after the answer (None: not checked); when it differs
    from the grader's run, the answer changed torch, the model or the optimizer: it earns nothing.
    """
    exercise(exercise_id)
    if not isinstance(trace, dict) or trace.get("not_attempted"):
        message = "define your fixed function(s), then run this cell again"
        return Verdict(exercise_id, 2, Outcome.NOT_ATTEMPTED, message), FixJudgement(message=message)
    chosen = resolve_variant(exercise_id, variant)
    if given is not None and (why := given_problem(chosen, seed, given)):
        message = f"{why}: your cell changes torch, the model or the optimizer; fix the functions instead"
        return Verdict(exercise_id, 2, Outcome.INCORRECT, message), FixJudgement(message=message)
    judged = judge_trace(seed, trace, reference_setup(chosen, seed), reference_reach(chosen, seed))
    ran = _ran(trace)
    if all(judged.status[n] == "passed" for n in CHECKS):
        return Verdict(exercise_id, 2, Outcome.CORRECT, judged.message + ran, judged.checks), judged
    relevant = broken_failures(chosen, seed)  # only an incorrect fix needs them: judged here, not before
    shown = tuple((name, ok) for name, ok in judged.checks if name in relevant)
    passing = [name for name, _ in judged.checks if name not in relevant]
    already = f" (not shown: {', '.join(passing)}, which the broken code already passes)" if passing else ""
    return Verdict(exercise_id, 2, Outcome.INCORRECT, judged.message + ran + already, shown), judged


def part2_verdict(
    exercise_id: str, variant: Variant | str | None, trace: Any, seed: int = 0, given: Any = None
) -> Verdict:
    """Part 2's verdict from a recorded fix trace (judge_part2 without the detail)."""
    return judge_part2(exercise_id, variant, trace, seed, given)[0]


def _ran(trace: dict) -> str:
    ran = [n for n in trace.get("ran", []) if n in FIXABLE]
    if not ran:
        return ""
    swaps = ", ".join(f"your {n} in place of {FIXABLE[n]}" for n in ran)
    return f" (ran {swaps}; the rest as given)"


def function_source(code: str, name: str) -> str:
    """The source of one top-level function in rendered broken (or fixed) code."""
    start = code.index(f"def {name}(")
    end = code.find("\n\n\n", start)
    return code[start : end if end >= 0 else len(code)].rstrip("\n")


def _part1_hints(variant: Variant) -> tuple[str, ...]:
    return BUGS[variant.bug].hints


def _part1_solution(variant: Variant) -> str:
    return BUGS[variant.bug]._proof


# Part 2's first hint: what the stage part 1 proved says about where to look (not which line to change).
_WHERE_TO_LOOK = {
    "GRAD_MODE_DISABLED": "the loss is computed where autograd records nothing: what turns recording off?",
    "FORWARD_NON_FINITE": "a NaN or Inf is made in the forward pass: which operation can divide by zero or "
    "take the log of zero, and what would keep its input in range?",
    "LOSS_NOT_IN_GRAPH": "the loss has no graph back to the parameters: where is the output cut off from it?",
    "PARAMS_FROZEN": "some parameters do not require grad: where are they set that way?",
    "BACKWARD_FAILED": "backward raises: what was changed in place, or freed, after the forward saved it?",
    "GRAD_MISSING": "some trainable parameters get no gradient: which part of the model does the loss skip?",
    "GRAD_NON_FINITE": "the gradients hold NaN or Inf: which operation has an infinite derivative there?",
    "GRAD_MAGNITUDE": "the gradients vanish or explode: what scales the loss or the outputs on the way?",
    "PARAMS_UNREGISTERED": "a layer is held where the module does not register it: how is it stored?",
    "NOT_IN_OPTIMIZER": "the optimizer lacks some parameters: what does it get, and when is it built?",
    "GRADS_ACCUMULATING": "each step's gradient keeps the ones before it: what clears .grad between steps?",
    "PARAMS_NOT_UPDATED": "the step runs and nothing moves: what sets how far optimizer.step() moves them?",
}


def _part2_hints(variant: Variant) -> tuple[str, ...]:
    bug = BUGS[variant.bug]
    where = bug.where
    fixed = next(k for k, v in FIXABLE.items() if v == where)
    return (
        f"Start from what part 1 proved: {_WHERE_TO_LOOK.get(bug.stage, 'find the line that causes it.')} "
        "Define fixed_setup, fixed_compute_loss or fixed_step (one is enough); the check runs the broken "
        "code with yours in place of the broken one.",
        f"The bug lives in {where}: copy it from the code above, name it {fixed} and change what breaks.",
    )


def _part2_solution(variant: Variant) -> str:
    where = BUGS[variant.bug].where
    fixed = next(k for k, v in FIXABLE.items() if v == where)
    return function_source(unrecorded_fixed_code(variant), where).replace(f"def {where}(", f"def {fixed}(", 1)


@dataclass(frozen=True)
class PartSpec:
    """One exercise part: what the learner writes, the stub, the check, hints, solution and points."""

    number: int
    title: str
    task: str  # Markdown shown above the answer cell
    answers: tuple[str, ...]  # the names the check reads from the learner's namespace
    placeholder: str  # the exercise's stub for the answer region
    hints: Callable[[Variant], tuple[str, ...]]
    _solution: Callable[[Variant], str]  # read through solution(), which records the view
    points: int  # part 2 splits them evenly over its checks

    def solution(self, variant: Variant) -> str:
        """The reference answer for one variant; reading it is recorded in that variant's notebook."""
        viewed(self.number, variant=variant)
        return self._solution(variant)

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
        "Repair your own code: copy the function that holds the bug, name it `fixed_setup`, "
        "`fixed_compute_loss` or `fixed_step` (same arguments), and change only what is broken; its shape "
        "and settings stay (the model, the optimizer and its settings as the code means them: a fix may "
        "not train faster than the code intends). The check runs the broken code with yours instead of the "
        f"broken one(s) for {FIX_STEPS} steps and judges what the training did; a partial fix earns the "
        "checks it repairs:\n\n" + "\n".join(f"- `{name}`: {CHECK_MEANINGS[name]}" for name in CHECKS),
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
