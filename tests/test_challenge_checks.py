"""The checks in-process: verdicts of both parts, one output per check, hints, solutions, usage records."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from learner import notebook, run_cell

from autograd_course.fixing.fixcheck import CHECKS, FIX_STEPS, judge_fix
from autograd_instructor.challenge import EXERCISES, PARTS, NotAttempted, Outcome, Variant, part2_verdict
from autograd_instructor.challenge.catalogue import BUGS
from autograd_instructor.challenge.exercise import Challenge, fix_trace
from autograd_instructor.challenge.parts import function_source
from helpers import Stage, TinyNet


@pytest.mark.parametrize("ex_id", list(EXERCISES))
def test_each_parts_declared_solution_passes_on_the_default_variant(ex_id):
    ns, ex = notebook(ex_id)
    for number, spec in PARTS.items():
        run_cell(ns, spec._solution(ex.variant))
        verdict = getattr(ex, f"part{number}").verdict()
        assert verdict.outcome is Outcome.CORRECT, verdict.message
    assert ex.part2.verdict().checks == tuple((name, True) for name in CHECKS)


def test_a_check_shows_one_verdict_and_never_raises(capsys):
    ns, ex = notebook("A")
    ex.part1.check()  # not attempted
    ns["stage"], ns["evidence"] = Stage.OK, 3.0  # attempted, wrong
    ex.part1.check()
    ns["fixed_step"] = "not a function"
    ex.part2.check()
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == ["A part 1", "A part 1", "A part 2"]
    assert "not attempted" in lines[0] and "incorrect" in lines[1] and "must be a function" in lines[2]
    assert ex.verdicts[2].outcome is Outcome.INCORRECT and not ex.solved()


def test_placeholders_and_missing_answers_are_not_attempted():
    ns, ex = notebook("M1")
    ns["stage"], ns["evidence"] = NotAttempted, NotAttempted
    assert ex.part1.verdict().outcome is Outcome.NOT_ATTEMPTED
    assert ex.part2.verdict().outcome is Outcome.NOT_ATTEMPTED
    ns["stage"] = Stage.PARAMS_NOT_UPDATED  # evidence still missing
    assert ex.part1.verdict().outcome is Outcome.NOT_ATTEMPTED


@pytest.mark.parametrize(
    ("stage", "evidence", "words"),
    [("LOSS_NOT_IN_GRAPH", 3.0, "helpers.Stage"), (Stage.OK, object(), "cannot read")],
)
def test_bad_part1_answers_say_what_was_expected(stage, evidence, words):
    ns, ex = notebook("A")
    ns["stage"], ns["evidence"] = stage, evidence
    verdict = ex.part1.verdict()
    assert verdict.outcome is Outcome.INCORRECT and words in verdict.message


def _judged(ex_id: str, **fixed) -> tuple:
    """What the training checks say about a fix, whatever its code shape (judge_fix on its trace)."""
    return judge_fix(0, fix_trace(Variant(EXERCISES[ex_id].bug), fixed, 0, "cpu"))


@pytest.mark.parametrize(
    ("ex_id", "repairable"),
    [
        ("C", ("no_carryover", "params_move")),
        ("D", ("no_carryover", "loss_falls")),
        ("E", ("true_loss", "no_carryover", "loss_falls")),
    ],
)
def test_part2_lists_only_the_checks_the_broken_code_fails_until_it_is_correct(ex_id, repairable):
    ns, ex = notebook(ex_id)
    where = BUGS[ex.variant.bug].where
    answer = {"broken_setup": "fixed_setup", "compute_loss": "fixed_compute_loss"}.get(where, "fixed_step")
    source = function_source(ex.code(), where).replace(f"def {where}(", f"def {answer}(", 1)
    run_cell(ns, source)  # the broken function, unchanged
    unchanged = ex.part2.verdict()
    assert unchanged.checks == tuple((n, False) for n in repairable)
    html = unchanged._checks_html()
    assert all(name in html for name in repairable)
    assert not any(name in html for name in set(CHECKS) - set(repairable)), "no unrelated check shown"
    run_cell(ns, PARTS[2]._solution(ex.variant))
    assert ex.part2.verdict().checks == tuple((n, True) for n in CHECKS)


def test_part2_a_fake_loss_or_another_model_fails():
    def fake_step(model, optimizer, inputs, targets):
        optimizer.zero_grad()
        loss = F.mse_loss(model(inputs), targets)
        loss.backward()
        optimizer.step()
        return torch.tensor(float(loss) * 0.5)

    checks, message = _judged("A", fixed_step=fake_step)
    assert dict(checks)["true_loss"] is False and "return the loss you train on" in message

    def other_setup(seed, device):
        model = TinyNet(seed + 1)
        return model, torch.optim.Adam(model.parameters(), lr=0.03)

    checks, message = _judged("B", fixed_setup=other_setup)
    assert not any(ok for _, ok in checks) and "different weights" in message


def test_part2_verdict_is_a_pure_function_of_plain_data():
    ns, ex = notebook("M1")
    run_cell(ns, PARTS[2].solution(ex.variant))
    trace = fix_trace(ex.variant, {"fixed_setup": ns["fixed_setup"]}, 0, "cpu")
    assert len(trace["losses"]) == FIX_STEPS
    assert part2_verdict("M1", None, trace).outcome is Outcome.CORRECT
    assert part2_verdict("M1", None, {"not_attempted": True}).outcome is Outcome.NOT_ATTEMPTED
    assert part2_verdict("M1", "someone", {"error": "boom"}).message == "boom"


def test_hints_out_of_range_say_how_many_without_raising(capsys):
    _, ex = notebook("A")
    ex.part1.hint(3)
    ex.part2.hint(0)
    out = capsys.readouterr().out
    assert "A part 1 has 2 hints: ask for hint(1) or hint(2) (got 3)." in out
    assert "A part 2 has 2 hints" in out
    assert ex.usage == []  # a refused hint is not recorded as used


def test_hint_and_solution_record_their_use(capsys):
    _, ex = notebook("M2")
    ex.part1.hint()
    ex.part2.hint(2)
    ex.part2.solution()
    out = capsys.readouterr().out
    # M2's default bug lives in compute_loss
    assert "Hint 1 of 2:" in out and "def fixed_compute_loss(" in out
    assert ex.usage == [
        {"exercise": "M2", "part": 1, "kind": "hint", "level": 1},
        {"exercise": "M2", "part": 2, "kind": "hint", "level": 2},
        {"exercise": "M2", "part": 2, "kind": "solution", "level": 3},
    ]


def test_verdict_renders_one_bundle_with_html_text_and_json():
    ns, ex = notebook("A")
    run_cell(ns, PARTS[2].solution(ex.variant))
    bundle = ex.part2.verdict()._repr_mimebundle_()
    assert bundle["text/plain"].startswith("A part 2: correct.")
    assert "#c8e6c9" in bundle["text/html"] and "no_carryover" in bundle["text/html"]
    data = bundle["application/vnd.autograd-course.verdict+json"]
    assert data["status"] == "passed" and [name for name, _ in data["checks"]] == list(CHECKS)


def test_binding_needs_the_namespace_and_an_int_seed():
    with pytest.raises(TypeError, match="globals"):
        Challenge("A", None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="int `seed`"):
        Challenge("A", {"seed": "0"})
    with pytest.raises(KeyError, match="expected one of A, B"):
        Challenge("Z", {})
