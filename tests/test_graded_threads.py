"""The grader judges learners in parallel threads, with no judging lock: parts judged at the same time
get the verdicts, flags and trails they get one at a time, and the grader's stdout stays its own.
The trusted runs that seed torch's global RNG take their turns (autograd_course/global_rng.py); their
caches are emptied first, so the concurrent judgements run them side by side. No kernel: the hidden
runs run in this process, as the grader's kernel runs them."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from solved import solved_for

from autograd_instructor.challenge.answer_source import answer_source
from autograd_instructor.challenge.hidden import bug_shows, run_hidden
from autograd_instructor.challenge.notebooks import challenge_cells
from autograd_instructor.challenge.parts import broken_failures, broken_trace
from autograd_instructor.challenge.reference import trace_broken
from autograd_instructor.grading.fixcells import run_here
from autograd_instructor.grading.grade import judge_hidden

# right answers of both parts for learners with different bugs and code shapes, and a wrong one of each
CASES = [("ada", "A", 1), ("ada", "A", 2), ("bob", "M1", 1), ("bob", "M1", 2), ("cy", "D", 1), ("cy", "D", 2)]
WRONG = {
    1: "stage = Stage.GRADS_ACCUMULATING\nevidence = [3.3083, 6.1208, 8.5233]\n",  # typed by hand
    2: "def fixed_step(model, optimizer, inputs, targets):\n"
    "    return broken_step(model, optimizer, inputs, targets)\n",  # the broken step, unchanged
}


def _answer(learner: str, ex_id: str, part: int) -> str:
    nb = solved_for(learner, ex_id)
    return next(
        nb.cells[i].source for i, m in challenge_cells(nb) if m["role"] == "answer" and m["part"] == part
    )


def _forget_reference_runs() -> None:
    for cached in (bug_shows, broken_trace, broken_failures, trace_broken):
        cached.cache_clear()


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """{case: (export folder, answer)} of each case's hidden runs, run once."""
    found = {}
    for learner, ex_id, part in CASES:
        source = WRONG[part] if learner == "cy" else _answer(learner, ex_id, part)
        answer = answer_source(source, part)
        folder = tmp_path_factory.mktemp(f"{learner}-{ex_id}-{part}")
        if part == 2:
            run_here(ex_id, learner, answer, folder)
        else:
            run_hidden(ex_id, learner, 1, answer.source, str(folder), answer.prelude)
        found[(learner, ex_id, part)] = (folder, answer)
    return found


def _judged(exported, case) -> tuple:
    folder, answer = exported[case]
    r = judge_hidden("nb", folder, case[1], case[2], answer, case[0])
    return r.status, r.message, r.checks, r.flags, r.trail


def test_parts_judged_at_once_get_the_verdicts_and_trails_they_get_one_at_a_time(exported):
    _forget_reference_runs()
    alone = {case: _judged(exported, case) for case in CASES}
    assert [alone[c][0] for c in CASES] == ["passed"] * 4 + ["failed"] * 2
    stdout = sys.stdout
    for _ in range(2):
        _forget_reference_runs()
        with ThreadPoolExecutor(max_workers=len(CASES)) as pool:
            together = list(pool.map(lambda case: _judged(exported, case), CASES * 2))
        assert together == [alone[c] for c in CASES * 2]
    assert sys.stdout is stdout  # the reference proofs' redirections were undone in order
