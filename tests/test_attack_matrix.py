"""Every attack (tests/attacks.py) in every exercise, in graded and practice notebooks, earns nothing
unflagged; honest learners writing in styles unlike the reference earn every point.

One class, one `grade` (grade_folder, under bubblewrap) shared by every assertion: a learner per
attack, each with the 8 graded notebooks of a release keyed by a fixed secret and the 8 practice
notebooks, all their answers run in one kernel per part (kernels are what grading costs).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path

import nbformat
import pytest
import torch
from attacks import ATTACKS, HONEST, Target
from learner import notebook, run_cell

import helpers
from autograd_course.course import course_root
from autograd_course.execution.sandbox import bwrap_problem, choose_sandbox
from autograd_course.exercises import EXERCISES
from autograd_course.graded import VARIANTS_FILE, GradedChallenge
from autograd_instructor.challenge import PARTS, Outcome, variant_for
from autograd_instructor.challenge.answer_source import answer_source
from autograd_instructor.challenge.hidden import HIDDEN_RUNS, hidden_path
from autograd_instructor.challenge.notebooks import challenge_cells
from autograd_instructor.challenge.secret import graded_key, learner_token
from autograd_instructor.classroom.graded_release import graded_notebook, variants_data
from autograd_instructor.grading.grade import Submission, grade_folder
from autograd_instructor.grading.judging import judge_part
from autograd_instructor.grading.scoring import part_max, score

pytestmark = pytest.mark.slow

SECRET = "a7" * 32  # the release's secret: fixed, so every learner's graded variants are known here
MODES = ("graded", "practice")
VICTIM = "victim"  # the classmate whose practice answers "classmate's answers" copies
VIEWER = "viewer"  # practice notebooks in the graded class: solution() called, outputs cleared


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _variant(student: str, mode: str, ex_id: str):
    return variant_for(graded_key(SECRET, student) if mode == "graded" else student, ex_id)


def _notebook(ex_id: str, mode: str, answers: dict[int, str]) -> nbformat.NotebookNode:
    nb = nbformat.read(next((course_root() / "exercises").glob(f"{ex_id}_*.ipynb")), as_version=4)
    nb = graded_notebook(nb, ex_id) if mode == "graded" else nb
    for i, meta in challenge_cells(nb):
        if meta["role"] == "answer":
            nb.cells[i].source = answers.get(meta["part"], "")
    return nb


def _write(root: Path, student: str, mode: str, ex_id: str, nb) -> Submission:
    path = root / student / mode / f"{ex_id}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return Submission(student, f"{student}/{mode}/{ex_id}.ipynb", path, learner=student)


def _viewer(root: Path, ex_id: str) -> Submission:
    """The learner's own right answers, after solution() calls whose outputs were cleared."""
    variant = variant_for(VIEWER, ex_id)
    nb = _notebook(ex_id, "practice", _reference(variant))
    scratch = nbformat.v4.new_code_cell("ex.part1.solution()\nex.part2.solution()")
    nb.cells.insert(next(i for i, _ in challenge_cells(nb)), scratch)
    return _write(root, VIEWER, "practice", ex_id, nb)


def _class(root: Path) -> list[Submission]:
    subs = []
    for ex_id in EXERCISES:
        victim = variant_for(VICTIM, ex_id)
        subs.append(_write(root, VICTIM, "practice", ex_id, _notebook(ex_id, "practice", _reference(victim))))
        subs.append(_viewer(root, ex_id))
        for mode in MODES:
            for attack in ATTACKS:
                student = _slug(attack.name)
                target = Target(ex_id, _variant(student, mode, ex_id), victim)
                subs.append(_write(root, student, mode, ex_id, _notebook(ex_id, mode, attack.write(target))))
            for style, rewrite in HONEST.items():
                student = _slug(style)
                own = _reference(_variant(student, mode, ex_id))
                answers = {n: rewrite(source, n) for n, source in own.items()}
                subs.append(_write(root, student, mode, ex_id, _notebook(ex_id, mode, answers)))
    return subs


def _reference(variant) -> dict[int, str]:
    return {n: PARTS[n]._solution(variant) for n in PARTS}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    problem = bwrap_problem()
    if problem and os.environ.get("AUTOGRAD_COURSE_REQUIRE_SANDBOX") == "1":
        pytest.fail(f"bubblewrap is required here (AUTOGRAD_COURSE_REQUIRE_SANDBOX=1) but: {problem}")
    if problem:
        pytest.skip(f"bubblewrap is not usable here: {problem}")
    root = tmp_path_factory.mktemp("attacks")
    subs = _class(root / "submissions")
    records = grade_folder(
        subs, jobs=2, timeout=300, progress=False, sandbox=choose_sandbox("bwrap"), secret=SECRET
    )
    return {(r.student, r.submission.split("/")[1], r.exercise, r.part): r for r in records}


def _flagged(record) -> bool:
    """Listed for the instructor: a flag that is not a mere warning, or a solution viewed."""
    return record.solution_viewed or any(not f.startswith("warning") for f in record.flags)


# Attacks that still earn unflagged points, and where (a strict xfail each, with its reason): none now.
# A gap found later goes here as {attack name: (reason, ("A-graded", ...))} until it is closed.
GAPS: dict[str, tuple[str, tuple[str, ...]]] = {}


def _cell(attack, ex_id: str, mode: str):
    reason, where = GAPS.get(attack.name, ("", ()))
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if f"{ex_id}-{mode}" in where else []
    return pytest.param(attack, ex_id, mode, marks=marks, id=f"{_slug(attack.name)}-{ex_id}-{mode}")


@pytest.mark.parametrize(
    ("attack", "ex_id", "mode"), [_cell(a, e, m) for a in ATTACKS for e in EXERCISES for m in MODES]
)
def test_an_attack_earns_nothing_unflagged(graded, attack, ex_id, mode):
    student = _slug(attack.name)
    parts = attack.write(Target(ex_id, _variant(student, mode, ex_id), variant_for(VICTIM, ex_id)))
    for part in parts:
        record = graded[student, mode, ex_id, part]
        assert "syntax error" not in record.message, record.message  # the attack itself is well formed
        assert score(record) == 0 or _flagged(record), (part, record.status, record.message, record.flags)


HONEST_CELLS = [(s, ex_id, mode) for s in HONEST for ex_id in EXERCISES for mode in MODES]


@pytest.mark.parametrize(
    ("style", "ex_id", "mode"), HONEST_CELLS, ids=[f"{_slug(s)}-{e}-{m}" for s, e, m in HONEST_CELLS]
)
def test_an_honest_style_earns_every_point_unflagged(graded, style, ex_id, mode):
    for part in PARTS:
        record = graded[_slug(style), mode, ex_id, part]
        assert record.status == "passed", (part, record.message)
        assert score(record) == part_max(part) > 0
        assert not _flagged(record), record.flags


@pytest.mark.parametrize("ex_id", list(EXERCISES))
def test_a_practice_notebook_in_a_graded_class_is_listed_with_its_solutions_viewed(graded, ex_id):
    for part in PARTS:
        record = graded[VIEWER, "practice", ex_id, part]
        assert record.mode == "practice" and record.solution_viewed, record


def _honest_answer(style: str, mode: str, ex_id: str, part: int) -> str:
    return HONEST[style](_reference(_variant(_slug(style), mode, ex_id))[part], part)


def _practice_check(style: str, ex_id: str, part: int) -> Outcome:
    """The practice notebook's own check of the answer (its cell's IPython syntax made plain Python)."""
    ns, ex = notebook(ex_id, _variant(_slug(style), "practice", ex_id))
    run_cell(ns, answer_source(_honest_answer(style, "practice", ex_id, part), part).source)
    return getattr(ex, f"part{part}").verdict().outcome


def _graded_check(folder: Path, style: str, ex_id: str, part: int) -> Outcome:
    """The graded notebook's own check of an honest style's answer."""
    return _graded_check_of(folder, _slug(style), ex_id, part, _honest_answer(style, "graded", ex_id, part))


def _graded_check_of(folder: Path, student: str, ex_id: str, part: int, answer: str) -> Outcome:
    """The graded notebook's own check: the release's entry opened with the learner's token."""
    ns = {"seed": 0, "device": "cpu", "torch": torch, "F": torch.nn.functional}
    ns |= {name: getattr(helpers, name) for name in helpers.__all__}
    ex = GradedChallenge(ex_id, ns, student, folder, learner_token(SECRET, student))
    ns["broken_setup"], ns["compute_loss"], ns["broken_step"] = ex.broken()
    ns["inputs"], ns["targets"] = helpers.make_tiny_problem(0)
    source = answer_source(answer, part).source
    ns["In"] = ["", source, f"ex.part{part}.check()"]  # IPython's history: the answer cell, then the check
    with contextlib.suppress(
        Exception
    ):  # a cell that raises leaves the learner its check to run all the same
        run_cell(ns, source)
    return getattr(ex, f"part{part}").verdict().outcome


# Attacks in the answer itself (no patched torch, no threads, no exits, no processes): safe to run in
# this process, where the graded notebook's own check must predict what `grade` gave them.
ANSWER_LEVEL = (
    "default solutions pasted",
    "classmate's answers",
    "toolkit diagnose",
    "broken step in try, textbook in except",
    "typed report",
    "error raised by hand",
    "error raised inside the step",
    "non-finite loss typed",
)


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    """The graded release's sealed variants file, for the graded checks of honest and attacking learners."""
    folder = tmp_path_factory.mktemp("release")
    data = variants_data(list(EXERCISES), [_slug(s) for s in (*HONEST, *ANSWER_LEVEL)], SECRET)
    (folder / VARIANTS_FILE).write_text(json.dumps(data))
    return folder


@pytest.mark.parametrize(
    ("style", "ex_id", "mode"), HONEST_CELLS, ids=[f"{_slug(s)}-{e}-{m}" for s, e, m in HONEST_CELLS]
)
def test_the_notebooks_own_check_passes_honest_styles_as_grade_does(release, style, ex_id, mode):
    """With test_an_honest_style_earns_every_point_unflagged: the notebook's check and `grade` agree."""
    for part in PARTS:
        if mode == "graded":
            check = _graded_check(release, style, ex_id, part)
        else:
            check = _practice_check(style, ex_id, part)
        assert check is Outcome.CORRECT, (part, check)


PREDICTED = [(a, e) for a in ATTACKS if a.name in ANSWER_LEVEL for e in EXERCISES]


def test_every_answer_level_attack_is_an_attack_of_the_matrix():
    assert set(ANSWER_LEVEL) <= {a.name for a in ATTACKS}


# What the graded notebook's check does not judge, as autograd_course/graded.py says: whether the code
# fails at the named stage (that would tell a learner the stage). A grade lost there only.
UNSEEN_BY_THE_CHECK = ("but this code does not fail there",)


@pytest.mark.parametrize(("attack", "ex_id"), PREDICTED, ids=[f"{_slug(a.name)}-{e}" for a, e in PREDICTED])
def test_the_graded_notebooks_own_check_predicts_what_an_attack_earns(graded, release, attack, ex_id):
    """A part the check fails earns less than every point in `grade`; a part it passes earns every point,
    or loses them only for what the check does not judge (UNSEEN_BY_THE_CHECK)."""
    student = _slug(attack.name)
    target = Target(ex_id, _variant(student, "graded", ex_id), variant_for(VICTIM, ex_id))
    for part, answer in attack.write(target).items():
        check = _graded_check_of(release, student, ex_id, part, answer)
        record = graded[student, "graded", ex_id, part]
        if check is not Outcome.CORRECT:
            assert score(record) < part_max(part), (part, check, record.message)
        elif score(record) < part_max(part):
            assert any(unseen in record.message for unseen in UNSEEN_BY_THE_CHECK), (part, record.message)


@pytest.mark.parametrize(("ex_id", "mode"), [(e, m) for e in EXERCISES for m in MODES])
def test_a_fix_that_runs_out_of_memory_is_an_error_for_the_instructor(graded, ex_id, mode):
    record = graded[_slug("fix that runs out of memory"), mode, ex_id, 2]
    assert record.status == "error" and "ran out of memory" in record.message, record.message
    assert _flagged(record)


def test_a_training_that_hit_the_memory_limit_is_judged_an_error_not_a_wrong_fix(tmp_path):
    """What the sandbox's memory limit leaves in a hidden run's record, judged by the grader."""
    error = "the training raised RuntimeError: DefaultCPUAllocator: can't allocate memory: you tried"
    run = {"fix": {"error": error}, "given": {"error": "x"}, "printed": "", "raised": None, "ran": []}
    for k in range(HIDDEN_RUNS):
        torch.save(run, hidden_path(tmp_path, "A", 2, k))
    answer = answer_source("def fixed_step(model, optimizer, inputs, targets):\n    return 1\n", 2)
    judged = judge_part(tmp_path, "A", 2, answer, None)
    assert "ran out of memory" in judged.problem and judged.flags
