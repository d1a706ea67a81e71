"""The grader's hidden runs of part 1: which broken code and seeds an answer is run on, and where.

A part-1 answer runs in a sandboxed kernel that cannot import the course (no catalogue, reference,
proof or judge): the grader renders the broken code of each hidden run (the learner's bug, in their
own code shape and in another one) and sends it, with the answer, a hidden seed and the harness
(proving/proofrun.py, as source text: grading/proofcells.py), into that kernel. The harness writes
plain data (the stage's name, the evidence's summary, what was printed, the error and its line); the
grader judges it in its own process against its own run of the same code (grading/judging.py).
Part 2 runs the same way with its own harness (fixing/fixrun.py, grading/fixcells.py).

`run_hidden` runs part 1's harness in this process, for tests: no sandbox, the course importable.
"""

from __future__ import annotations

import contextlib
import functools
import io
import secrets
from pathlib import Path

from autograd_course.global_rng import global_rng
from autograd_course.harness_core import defined_codes
from autograd_course.proving import proofrun
from autograd_instructor.challenge.catalogue import BUGS, exercise, render
from autograd_instructor.challenge.contract import judge_evidence
from autograd_instructor.challenge.draw import variant_for
from autograd_instructor.challenge.variants import Variant, digest, shape_number

__all__ = [
    "HIDDEN_RUNS",
    "SEED_SPACE",
    "broken_file",
    "bug_shows",
    "hidden_path",
    "hidden_runs",
    "hidden_seed",
    "run_hidden",
]

HIDDEN_RUNS = 2  # hidden runs per part: each must pass
SEED_TRIES = 20  # seeds tried per hidden run for one where the bug shows
# Hidden seeds are drawn from 1..2**62: an answer that shows values of its run (a loss in an error
# message) cannot have its seed searched back by running the broken code on every candidate, as it
# could from a few thousand. torch.manual_seed takes up to 2**64 - 1.
SEED_SPACE = 2**62


def broken_file() -> str:
    """A fresh file name for one run's broken code: only errors raised there count as the code's."""
    return f"<broken code {secrets.token_hex(8)}>"


@functools.lru_cache(maxsize=256)
def bug_shows(variant: Variant, seed: int) -> bool:
    """Does the reference proof prove the bug's stage on this run? (A seed where it does not, e.g. a
    loss that stays finite, is never a hidden run: a right proof must be able to pass.)"""
    name = broken_file()
    ns = proofrun.answer_namespace(render(variant), name, seed)
    broken = defined_codes(ns, name)
    with global_rng(), contextlib.redirect_stdout(io.StringIO()):
        try:
            exec(compile(BUGS[variant.bug]._proof, "<reference proof>", "exec"), ns)
        except Exception:  # the proof cannot run here: the bug does not show as it should
            return False
    summary = proofrun.summarize(ns.get("evidence"), broken.__contains__)
    return judge_evidence(variant, seed, proofrun.stage_name(ns.get("stage")), summary)[0]


def hidden_seed(learner: str | None, exercise_id: str, part: int, k: int, attempt: int) -> int:
    """The seed drawn for hidden run k of one part at one attempt (1 to SEED_SPACE)."""
    draw = digest(str(learner), exercise_id, str(part), "hidden seed", str(k), str(attempt))
    return 1 + draw % SEED_SPACE


def hidden_runs(learner: str | None, exercise_id: str, part: int) -> list[tuple[Variant, int]]:
    """(variant, seed) of each hidden run: the learner's bug in their shape, then in another shape;
    part 1's seeds are ones where the bug shows (bug_shows), so a right proof always passes."""
    own = variant_for(learner, exercise_id)
    runs = []
    for k in range(HIDDEN_RUNS):
        shape = (
            own.shape if (k == 0 or part == 2) else shape_number(digest(str(learner), exercise_id, str(k)))
        )
        variant = Variant(own.bug, shape)
        for attempt in range(SEED_TRIES):
            seed = hidden_seed(learner, exercise_id, part, k, attempt)
            if part == 2 or bug_shows(variant, seed):  # a right fix passes on any seed
                break
        runs.append((variant, seed))
    return runs


def hidden_path(out_dir: str | Path, exercise_id: str, part: int, k: int) -> Path:
    """Where hidden run k of one part writes what it saw."""
    return Path(out_dir) / f"{exercise_id}-part{part}-hidden{k}.{'json' if part == 1 else 'pt'}"


def run_hidden(
    exercise_id: str, learner: str | None, part: int, source: str, out_dir: str, prelude: list | tuple = ()
) -> None:
    """Part 1's hidden runs of one answer (after the earlier cells it needs, prelude) in this process
    (tests; no sandbox, the course importable)."""
    if part != 1:
        raise ValueError("run_hidden runs part 1; part 2 runs through fixrun.run_fix")
    exercise(exercise_id)
    for k, (variant, seed) in enumerate(hidden_runs(learner, exercise_id, 1)):
        out = str(hidden_path(out_dir, exercise_id, 1, k))
        proofrun.run_part1(source, render(variant), broken_file(), seed, out, prelude)
