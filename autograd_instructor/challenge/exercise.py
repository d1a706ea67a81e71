"""The check API inside the notebooks: `ex = challenge("A", globals())`, `ex.part1.check()`, hints, solutions.

The learner's namespace is bound explicitly; each part is a `ProblemView` (autograd_course.checks),
the same view as the lessons' activities: one verdict per check, never a raise, so Run All reaches
the end of a notebook whatever its state; every check, hint and solution call is recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from autograd_course.checks import Note, ProblemView, recorded, show
from autograd_course.fixing.fixcheck import collect_fix_trace
from autograd_course.learner import read_learner
from autograd_instructor.challenge.catalogue import FIXABLE, build_broken, exercise, render
from autograd_instructor.challenge.draw import variant_for
from autograd_instructor.challenge.evidence import stage_name, summarize
from autograd_instructor.challenge.parts import PARTS, answers_of, part1_verdict, part2_verdict
from autograd_instructor.challenge.variants import Variant
from autograd_instructor.challenge.verdict import NotAttemptedError, Outcome, Verdict
from autograd_instructor.challenge.viewing import watch

__all__ = ["Challenge", "Part", "challenge", "fix_trace"]


def _train(variant: Variant, answers: dict[str, Any], seed: int, device: str) -> dict:
    code = build_broken(variant, {FIXABLE[n]: f for n, f in answers.items()})
    with torch.random.fork_rng(devices=[]):
        return collect_fix_trace(code["broken_setup"], code["broken_step"], seed, device)


def fix_trace(variant: Variant, answers: dict[str, Any], seed: int, device: str) -> dict:
    """Run the broken code with the learner's fixed functions in place, then the given code alone
    (`given`: a patch of torch, the model or the optimizer shows there); exceptions become an error."""
    if not answers:
        return {"not_attempted": True}
    wrong = [n for n, f in answers.items() if not callable(f)]
    if wrong:
        return {"error": f"{', '.join(wrong)} must be a function (def {wrong[0]}(...): ...)"}
    ran = {"ran": sorted(answers)}
    try:
        trace = _train(variant, answers, seed, device) | ran
    except NotAttemptedError:
        return {"not_attempted": True}
    except Exception as exc:  # the learner's code failed: report it as the observation
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        trace = {"error": f"your fixed training raised {type(exc).__name__}: {first[:160]}"} | ran
    try:
        given = _train(variant, {}, seed, "cpu")
    except Exception as exc:  # the broken code raises, as some bugs do
        given = {"error": f"{type(exc).__name__}: {str(exc)[:160]}"}
    return trace | {"given": given}


class Part(ProblemView):
    """One graded part of an exercise: check(), hint(level), solution(), each recorded in the notebook."""

    def __init__(self, owner: Challenge, number: int) -> None:
        super().__init__()
        self.owner, self.number, self.spec = owner, number, PARTS[number]
        self.exercise_id, self.part_number = owner.exercise.id, number
        self.usage = owner.usage  # one record per exercise, in call order
        self._showing_solution = False
        watch(self)

    def verdict(self) -> Verdict:
        """This part's verdict, recorded as an attempt like check() (a loop over verdict() is seen)."""
        verdict = self._judge()
        record = {"exercise": self.exercise_id, "part": self.number, "kind": "check", "level": 1}
        self.usage.append(record)
        show(Note(f"{self.label}:", f"verdict() asked: {verdict.status} (recorded as a check)"), record)
        return verdict

    @recorded("check")
    def check(self) -> tuple[int, Verdict]:
        """Show this part's verdict (once); never raises, so Run All goes on."""
        self.last = self._judge()
        self.owner.verdicts[self.number] = self.last
        return 1, self.last

    def _judge(self) -> Verdict:
        """This part's verdict from the bound namespace (computed, not shown, not recorded)."""
        ex = self.owner
        answers = answers_of(self.number, ex.namespace)
        if self.number == 1:
            if set(answers) != {"stage", "evidence"}:
                missing = tuple(n for n in ("stage", "evidence") if n not in answers)
                return part1_verdict(ex.exercise.id, ex.variant, None, None, ex.seed, missing)
            summary = summarize(answers["evidence"])
            return part1_verdict(ex.exercise.id, ex.variant, stage_name(answers["stage"]), summary, ex.seed)
        trace = fix_trace(ex.variant, answers, ex.seed, ex.device)
        return part2_verdict(ex.exercise.id, ex.variant, trace, ex.seed, trace.get("given"))

    def hints(self) -> tuple[str, ...]:
        """This part's hints for this notebook's variant."""
        return self.spec.hints(self.owner.variant)

    def solution_text(self) -> str:
        """The reference solution of this part, for this notebook's variant (solution() records it)."""
        self._showing_solution = True
        try:
            return self.spec.solution(self.owner.variant)
        finally:
            self._showing_solution = False

    def record_view(self) -> None:
        """The reference answer was read through the package: record it as a solution view."""
        if not self._showing_solution:
            self._viewed_elsewhere()

    @recorded("solution")
    def _viewed_elsewhere(self) -> tuple[int, Note]:
        note = Note(f"{self.label}:", "the reference answer was read; recorded as a solution view.")
        return len(self.hints()) + 1, note

    def __repr__(self) -> str:
        return f"Part({self.owner.exercise.id} part {self.number}: {self.spec.title})"


class Challenge:
    """One exercise bound to a notebook's namespace: its variant's broken code, part1 and part2."""

    def __init__(
        self,
        exercise_id: str,
        namespace: dict[str, Any],
        *,
        learner: str | None = None,
        variant: Variant | None = None,
    ) -> None:
        if not isinstance(namespace, dict):
            raise TypeError(
                f"expected the notebook's namespace, challenge({exercise_id!r}, globals()); got {namespace!r}"
            )
        self.exercise = exercise(exercise_id)
        self.namespace = namespace
        seed, device = namespace.get("seed", 0), namespace.get("device", "cpu")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"expected an int `seed` in the notebook, got {seed!r}")
        self.seed, self.device = seed, str(device)
        self.learner = learner
        self.variant = variant if variant is not None else variant_for(learner, exercise_id)
        self.verdicts: dict[int, Verdict] = {}
        self.usage: list[dict] = []
        self.part1, self.part2 = Part(self, 1), Part(self, 2)

    def broken(self) -> tuple[Callable, Callable, Callable]:
        """(broken_setup, compute_loss, broken_step): this notebook's code with the planted bug."""
        code = build_broken(self.variant)
        return code["broken_setup"], code["compute_loss"], code["broken_step"]

    def code(self) -> str:
        """The source of the broken code."""
        return render(self.variant)

    def solved(self) -> bool:
        """True when every part's last check was correct."""
        return all(v.outcome is Outcome.CORRECT for v in self.verdicts.values()) and len(
            self.verdicts
        ) == len(PARTS)

    def __repr__(self) -> str:
        who = "default variant" if self.learner is None else f"learner {self.learner!r}"
        return f"Challenge({self.exercise.id}: {self.exercise.title!r}, {who}, seed={self.seed})"


_AUTO = object()


def challenge(exercise_id: str, namespace: dict[str, Any], learner: Any = _AUTO) -> Challenge:
    """The exercise bound to a notebook's globals(); the learner comes from the environment or course.json."""
    return Challenge(exercise_id, namespace, learner=read_learner() if learner is _AUTO else learner)
