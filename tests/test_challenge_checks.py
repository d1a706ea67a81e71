"""The checks in-process: every outcome of part 1 and part 2, rendering, hints and solutions."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from autograd_course.challenge import (
    EXERCISES,
    Incorrect,
    NotAttempted,
    NotAttemptedError,
    Outcome,
    challenge,
)
from autograd_course.challenge.catalogue import BUGS, CORRECT_SETUP, CORRECT_STEP, build_broken
from autograd_course.challenge.exercise import fix_trace_or_error, part1_verdict, part2_verdict
from helpers import (
    NonFiniteError,
    Stage,
    TinyNet,
    assert_finite,
    classify_parameter_gradients,
    debug_tensor,
    expect_error,
    gradient_report,
    make_tiny_problem,
    parameter_changes,
    parameter_report,
    snapshot_parameters,
)

SEED = 0


def _broken(ex_id):
    setup, step = challenge(ex_id, SEED).broken()
    model, optimizer = setup(SEED, "cpu")
    inputs, targets = make_tiny_problem(SEED)
    return model, optimizer, inputs, targets, step


def _evidence(ex_id):
    """Evidence a learner would compute for each exercise, and the stage it shows."""
    model, opt, x, y, step = _broken(ex_id)
    bug = EXERCISES[ex_id].bug
    if bug == "A":
        return debug_tensor("loss", F.mse_loss(model(x).detach(), y))
    if bug == "B":
        return parameter_report(model)
    if bug in ("C", "H"):
        step(model, opt, x, y)
        return classify_parameter_gradients(model, opt)
    if bug == "D":
        reports = []
        for _ in range(3):
            step(model, opt, x, y)
            reports.append(gradient_report(model))
        return reports
    if bug == "E":
        try:
            assert_finite("outputs", model(x) / 0)
        except NonFiniteError as err:
            return err
    if bug == "G":
        before = snapshot_parameters(model)
        step(model, opt, x, y)
        return parameter_changes(model, before)
    if bug == "I":
        with expect_error(RuntimeError, "inplace", quiet=True) as caught:
            step(model, opt, x, y)
        return caught
    raise AssertionError(bug)


@pytest.mark.parametrize("ex_id", list(EXERCISES))
def test_part1_correct_with_real_evidence(ex_id):
    stage = BUGS[EXERCISES[ex_id].bug].stage
    verdict = part1_verdict(EXERCISES[ex_id], SEED, stage, _evidence(ex_id))
    assert verdict.outcome is Outcome.CORRECT, verdict.message


@pytest.mark.parametrize("ex_id", ["A", "C", "M2"])
def test_part1_wrong_stage_is_incorrect_and_does_not_name_the_answer(ex_id):
    right = BUGS[EXERCISES[ex_id].bug].stage
    wrong = Stage.GRAD_MAGNITUDE
    verdict = part1_verdict(EXERCISES[ex_id], SEED, wrong, _evidence(ex_id))
    assert verdict.outcome is Outcome.INCORRECT
    assert "GRAD_MAGNITUDE" in verdict.message and f"Stage.{right.name}" not in verdict.message


def test_part1_evidence_from_another_setup_is_incorrect():
    model = TinyNet(seed=123)  # not the challenge's model
    x, y = make_tiny_problem(SEED)
    F.mse_loss(model(x), y).backward()
    fake = classify_parameter_gradients(model, torch.optim.Adam(model.fc2.parameters()))
    verdict = part1_verdict(EXERCISES["C"], SEED, Stage.NOT_IN_OPTIMIZER, fake)
    assert verdict.outcome is Outcome.INCORRECT
    assert "does not match what the broken setup produces" in verdict.message


def test_part1_real_evidence_that_does_not_show_the_failure_is_incorrect():
    model, *_ = _broken("C")
    verdict = part1_verdict(EXERCISES["C"], SEED, Stage.NOT_IN_OPTIMIZER, parameter_report(model))
    assert verdict.outcome is Outcome.INCORRECT
    assert "does not show where this step fails" in verdict.message


@pytest.mark.parametrize(
    ("stage", "evidence", "words"),
    [
        ("LOSS_NOT_IN_GRAPH", None, "helpers.Stage"),
        (Stage.LOSS_NOT_IN_GRAPH, "a string", "cannot read"),
    ],
)
def test_part1_bad_answers_say_what_was_expected(stage, evidence, words):
    verdict = part1_verdict(EXERCISES["A"], SEED, stage, evidence if evidence is not None else _evidence("A"))
    assert verdict.outcome is Outcome.INCORRECT and words in verdict.message


def test_part1_placeholder_is_not_attempted():
    verdict = part1_verdict(EXERCISES["A"], SEED, NotAttempted, NotAttempted)
    assert verdict.outcome is Outcome.NOT_ATTEMPTED


def _functions(setup_src, step_src):
    ns = {"torch": torch, "F": F, "TinyNet": TinyNet}
    exec(setup_src + "\n" + step_src, ns)
    return ns["broken_setup"], ns["broken_step"]


def _fix_verdict(ex_id, setup, step):
    return part2_verdict(EXERCISES[ex_id], SEED, fix_trace_or_error(setup, step, SEED, "cpu"))


def test_part2_correct_fix_passes():
    verdict = _fix_verdict("A", *_functions(CORRECT_SETUP, CORRECT_STEP))
    assert verdict.outcome is Outcome.CORRECT, verdict.message


@pytest.mark.parametrize(
    ("bug", "words"),
    [
        ("A", "raised RuntimeError"),
        ("B", "fc1.weight received no gradient"),
        ("C", "gradient of fc1.weight"),
        ("D", "gradients carry over"),
        ("E", "returned loss inf"),
        ("G", "never changed"),
        ("I", "modified by an inplace operation"),
    ],
)
def test_part2_the_broken_code_itself_fails_with_what_was_observed(bug, words):
    ex_id = next(e for e, ex in EXERCISES.items() if ex.bug == bug)
    verdict = _fix_verdict(ex_id, *build_broken(bug))
    assert verdict.outcome is Outcome.INCORRECT
    assert words in verdict.message


def test_part2_swapped_model_fails():
    def setup(seed, device):
        model = TinyNet(seed=seed + 99)
        return model, torch.optim.Adam(model.parameters(), lr=0.03)

    _, step = _functions(CORRECT_SETUP, CORRECT_STEP)
    verdict = _fix_verdict("A", setup, step)
    assert verdict.outcome is Outcome.INCORRECT and "starts from different weights" in verdict.message


def test_part2_loss_rebuilt_from_numbers_fails():
    setup, real_step = _functions(CORRECT_SETUP, CORRECT_STEP)

    def step(model, optimizer, inputs, targets):
        loss = real_step(model, optimizer, inputs, targets)
        return torch.tensor(float(loss.detach()) * 0.1)  # a number that only looks like the loss

    verdict = _fix_verdict("A", setup, step)
    assert verdict.outcome is Outcome.INCORRECT and "return the loss you train on" in verdict.message


def test_part2_skipping_the_broken_part_fails():
    setup, _ = _functions(CORRECT_SETUP, CORRECT_STEP)

    def step(model, optimizer, inputs, targets):  # trains fc2 only, so fc1 never moves
        optimizer.zero_grad()
        loss = F.mse_loss(model.fc2(torch.relu(model.fc1(inputs).detach())), targets)
        loss.backward()
        optimizer.step()
        return loss

    verdict = _fix_verdict("C", setup, step)
    assert verdict.outcome is Outcome.INCORRECT and "fc1.weight received no gradient" in verdict.message


def test_check_raises_one_line_errors_and_reads_notebook_globals(capsys):
    ex = challenge("A", SEED)
    with pytest.raises(NotAttemptedError) as caught:
        ex.part1.check(stage=NotAttempted, evidence=NotAttempted)
    assert caught.value._render_traceback_() == [f"NotAttemptedError: {caught.value.verdict.text()}"]
    with pytest.raises(Incorrect) as wrong:
        ex.part1.check(stage=Stage.OK, evidence=_evidence("A"))
    assert len(wrong.value._render_traceback_()) == 1
    globals()["stage"], globals()["evidence"] = Stage.LOSS_NOT_IN_GRAPH, _evidence("A")
    try:
        assert ex.part1.check() is None  # read from this module's globals, like a notebook's
    finally:
        del globals()["stage"], globals()["evidence"]
    assert "A part 1: correct" in capsys.readouterr().out


def test_verdict_html_is_a_coloured_block():
    verdict = part1_verdict(EXERCISES["A"], SEED, NotAttempted, NotAttempted)
    html = verdict._repr_html_()
    assert html.startswith("<div") and "background:" in html and "not attempted" in html


def test_hints_have_levels_and_reject_bad_levels(capsys):
    part = challenge("D").part1
    part.hint()
    part.hint(2)
    out = capsys.readouterr().out
    assert "Hint 1/2" in out and "Hint 2/2" in out
    with pytest.raises(ValueError, match="hint level from 1 to 2"):
        part.hint(3)


def test_solution_prints_the_solution_region(capsys):
    challenge("C").part2.solution()
    out = capsys.readouterr().out
    assert "def fixed_setup" in out and "BEGIN SOLUTION" not in out


def test_unknown_exercise_and_bad_seed_are_clear_errors():
    with pytest.raises(KeyError, match="expected one of A, B"):
        challenge("Z")
    with pytest.raises(TypeError, match="int seed"):
        challenge("A", seed="0")


def test_catalogue_has_at_least_eight_bugs_with_distinct_code():
    assert len(BUGS) >= 8
    codes = {b.setup + b.step for b in BUGS.values()}
    assert len(codes) == len(BUGS)
    assert {"A", "B", "C", "D", "E"} <= set(BUGS)
    assert sum(ex.mystery for ex in EXERCISES.values()) >= 3
