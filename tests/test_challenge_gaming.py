"""Every way the challenge was gamed fails, with a message that says why; honest answers still pass.

Part 1 must measure the skill (the learner's proof with the plain tools, from running the
notebook's code), part 2 the repair (the learner's own variant, its one broken thing changed).
"""

from __future__ import annotations

import pytest
from learner import notebook, run_cell

from autograd_course.fixing.fixcheck import CHECKS
from autograd_instructor.challenge import BUGS, EXERCISES, PARTS, Outcome, Variant
from autograd_instructor.challenge.catalogue import fixed_code, render
from autograd_instructor.challenge.draw import variant_for

LEARNERS = [None, "ada", "grace"]
SETUP = "model, optimizer = broken_setup(seed, device)\n"
DOCTOR = SETUP + (
    "evidence = diagnose(lambda: broken_step(model, optimizer, inputs, targets), model, optimizer)\n"
    "stage = evidence.stage\n"
)
TEXTBOOK = """
def fixed_setup(seed, device):
    torch.manual_seed(seed)
    model = TinyNet().to(device)
    return model, torch.optim.Adam(model.parameters(), lr=0.03)


def fixed_compute_loss(model, inputs, targets):
    return F.mse_loss(model(inputs), targets)


def fixed_step(model, optimizer, inputs, targets):
    optimizer.zero_grad()
    loss = fixed_compute_loss(model, inputs, targets)
    loss.backward()
    optimizer.step()
    return loss
"""


def _part(ex_id: str, part: int, source: str, learner: str | None = None, variant: Variant | None = None):
    ns, ex = notebook(ex_id, variant or variant_for(learner, ex_id))
    run_cell(ns, source)
    return getattr(ex, f"part{part}").verdict(), ex


@pytest.mark.parametrize("bug", list(BUGS))
def test_the_doctors_stage_alone_is_not_proof(bug):
    verdict, _ = _part("M1", 1, DOCTOR, variant=Variant(bug))
    assert verdict.outcome is Outcome.INCORRECT
    assert "doctor's verdict, not your proof" in verdict.message


def test_the_doctor_may_confirm_a_manual_proof():
    source = SETUP + (
        "before = snapshot_parameters(model)\nbroken_step(model, optimizer, inputs, targets)\n"
        "proof = parameter_changes(model, before)\n"
        "model, optimizer = broken_setup(seed, device)\n"
        "confirmed = diagnose(lambda: broken_step(model, optimizer, inputs, targets), model, optimizer)\n"
        "evidence, stage = [proof, confirmed], Stage.PARAMS_NOT_UPDATED\n"
    )
    verdict, _ = _part("M1", 1, source)
    assert verdict.outcome is Outcome.CORRECT, verdict.message


@pytest.mark.parametrize("learner", LEARNERS)
@pytest.mark.parametrize("ex_id", list(EXERCISES))
def test_a_textbook_loop_passes_only_where_it_trains_as_the_code_intends(ex_id, learner):
    """Judged by behaviour: a textbook loop is a fix where it trains exactly as the learner's code
    means to (Adam, lr 0.03), and fails, naming the update, where the code's optimizer has other settings."""
    verdict, _ = _part(ex_id, 2, TEXTBOOK, learner)
    if "betas=(0.9, 0.99)" in render(variant_for(learner, ex_id)):
        assert verdict.outcome is Outcome.INCORRECT and "update" in verdict.message, verdict.message
    else:
        assert verdict.outcome is Outcome.CORRECT, verdict.message


@pytest.mark.parametrize("learner", LEARNERS)
@pytest.mark.parametrize("ex_id", list(EXERCISES))
def test_the_unchanged_broken_function_earns_nothing(ex_id, learner):
    variant = variant_for(learner, ex_id)
    where = BUGS[variant.bug].where
    answer = {"broken_setup": "fixed_setup", "compute_loss": "fixed_compute_loss"}.get(where, "fixed_step")
    ns, ex = notebook(ex_id, variant)
    source = ex.code()
    start = source.index(f"def {where}(")
    end = source.find("\n\n\n", start)
    run_cell(ns, source[start : end if end > 0 else None].replace(f"def {where}(", f"def {answer}(", 1))
    verdict = ex.part2.verdict()
    assert verdict.outcome is Outcome.INCORRECT
    assert not any(ok for _, ok in verdict.checks), "it repairs nothing the broken code fails"


@pytest.mark.parametrize(
    ("ex_id", "source"),
    [
        (
            "A",
            "evidence = RuntimeError('element 0 of tensors does not require grad and does not have a "
            "grad_fn')\n"
            "stage = Stage.LOSS_NOT_IN_GRAPH\n",
        ),
        (
            "A",
            "try:\n    raise RuntimeError('element 0 of tensors does not require grad and does not have a "
            "grad_fn')\nexcept RuntimeError as exc:\n    evidence = [exc, True]\n"
            "stage = Stage.LOSS_NOT_IN_GRAPH\n",
        ),
        (
            "E",
            "evidence = NonFiniteError('loss', 0, 1, [float('inf')], 1)\nstage = Stage.FORWARD_NON_FINITE\n",
        ),
    ],
)
def test_hand_typed_evidence_is_refused_saying_why(ex_id, source):
    verdict, _ = _part(ex_id, 1, source)
    assert verdict.outcome is Outcome.INCORRECT
    assert "was not raised by this notebook's code" in verdict.message and "expect_error" in verdict.message


def test_a_bare_answer_alone_could_be_typed_and_is_refused():
    verdict, _ = _part("A", 1, "evidence, stage = torch.is_grad_enabled(), Stage.LOSS_NOT_IN_GRAPH\n")
    assert verdict.outcome is Outcome.INCORRECT and "typed by hand" in verdict.message


RAISE = SETUP + (
    "with expect_error(RuntimeError) as caught:\n    broken_step(model, optimizer, inputs, targets)\n"
)
ON_ITS_OWN = "loss_info = debug_tensor('loss', compute_loss(model, inputs, targets))\n"
IN_THE_STEP = (
    "with torch.no_grad():\n    grad_mode = torch.is_grad_enabled()  # as the step computes its loss\n"
)


@pytest.mark.parametrize(
    ("bug", "source", "stage"),
    [
        ("A", SETUP + ON_ITS_OWN + "evidence = loss_info\n", "LOSS_NOT_IN_GRAPH"),
        ("A", RAISE + "evidence = [caught.exception, torch.is_grad_enabled()]\n", "LOSS_NOT_IN_GRAPH"),
        ("F", RAISE + ON_ITS_OWN + "evidence = [caught.exception, loss_info]\n", "GRAD_MODE_DISABLED"),
        ("F", RAISE + IN_THE_STEP + "evidence = [caught.exception, grad_mode]\n", "GRAD_MODE_DISABLED"),
    ],
)
def test_detached_output_and_grad_mode_off_are_told_apart_by_evidence(bug, source, stage):
    other = {"LOSS_NOT_IN_GRAPH": "GRAD_MODE_DISABLED", "GRAD_MODE_DISABLED": "LOSS_NOT_IN_GRAPH"}[stage]
    right, _ = _part("M1", 1, source + f"stage = Stage.{stage}\n", variant=Variant(bug))
    assert right.outcome is Outcome.CORRECT, right.message
    wrong, _ = _part("M1", 1, source + f"stage = Stage.{other}\n", variant=Variant(bug))
    assert wrong.outcome is Outcome.INCORRECT


@pytest.mark.parametrize("bug", ["A", "F"])
def test_the_error_alone_fits_both_and_proves_neither(bug):
    for stage in ("LOSS_NOT_IN_GRAPH", "GRAD_MODE_DISABLED"):
        verdict, _ = _part(
            "M1", 1, RAISE + f"evidence = caught\nstage = Stage.{stage}\n", variant=Variant(bug)
        )
        assert verdict.outcome is Outcome.INCORRECT and "does not prove" in verdict.message


def test_a_wrong_stage_teaches_without_ranking_the_other_stages():
    source = SETUP + "before = snapshot_parameters(model)\nbroken_step(model, optimizer, inputs, targets)\n"
    source += "evidence = parameter_changes(model, before)\n"
    for stage in ("PARAMS_FROZEN", "NOT_IN_OPTIMIZER", "GRAD_MAGNITUDE"):
        verdict, _ = _part("M1", 1, source + f"stage = Stage.{stage}\n")
        assert verdict.outcome is Outcome.INCORRECT
        assert "PARAMS_NOT_UPDATED" not in verdict.message  # never names the answer, nor a closer stage


@pytest.mark.parametrize(
    "read",
    [
        lambda ex: PARTS[1].solution(ex.variant),
        lambda ex: PARTS[2].solution(ex.variant),
        lambda ex: fixed_code(ex.variant),
        lambda ex: BUGS[ex.variant.bug].proof,
    ],
    ids=["part1-solution", "part2-solution", "fixed_code", "bug-proof"],
)
def test_a_reference_answer_read_from_the_package_is_recorded_as_viewed(read, capsys):
    _, ex = notebook("B", variant_for("ada", "B"))
    _, other = notebook("C")
    assert read(ex)
    assert [u["kind"] for u in ex.usage] == ["solution"] and other.usage == []
    assert "recorded as a solution view" in capsys.readouterr().out


def test_partial_credit_counts_only_checks_the_broken_code_fails():
    # the lr read from a key the config lacks (0.0) -> 0.001 (the post's value) moves every parameter but
    # trains too slowly: one of two repaired
    verdict, ex = _part("M1", 2, "")
    broken = ex.code()
    start = broken.index("def broken_setup(")
    setup = broken[start : broken.index("\n\n\n", start)].replace('config.get("learning_rate", 0.0)', "0.001")
    run_cell(ex.namespace, setup.replace("def broken_setup(", "def fixed_setup(", 1))
    verdict = ex.part2.verdict()
    assert dict(verdict.checks) == {"params_move": True, "loss_falls": False}
    assert "0.03" not in PARTS[2].task  # the task does not hand a mystery round its answer


def test_a_stale_extra_fixed_function_is_named_in_the_verdict():
    ns, ex = notebook("A")
    run_cell(ns, PARTS[2]._solution(ex.variant))
    stale = "def fixed_step(model, optimizer, inputs, targets):\n"
    stale += "    return compute_loss(model, inputs, targets)\n"
    run_cell(ns, stale)
    verdict = ex.part2.verdict()
    assert verdict.outcome is Outcome.INCORRECT
    assert (
        "ran your fixed_compute_loss in place of compute_loss, your fixed_step in place of broken_step"
        in (verdict.message)
    )


@pytest.mark.parametrize("learner", ["ada", "grace", "student-007"])
def test_honest_reference_answers_pass_for_any_learner(learner):
    for ex_id in EXERCISES:
        variant = variant_for(learner, ex_id)
        ns, ex = notebook(ex_id, variant)
        for number in PARTS:
            run_cell(ns, PARTS[number]._solution(variant))
            verdict = getattr(ex, f"part{number}").verdict()
            assert verdict.outcome is Outcome.CORRECT, (ex_id, number, verdict.message)
        assert ex.part2.verdict().checks == tuple((name, True) for name in CHECKS)


@pytest.mark.parametrize(
    ("ex_id", "learner"), [("A", "ada"), ("B", "ada"), ("C", "grace"), ("D", "ada"), ("E", "ada")]
)
def test_the_committed_default_fix_pasted_into_another_learners_notebook_is_judged_by_what_it_does(
    ex_id, learner
):
    """It passes where it trains their code as their code means to; the grader lists the copy for the
    instructor (test_graded_copies)."""
    default = PARTS[2]._solution(variant_for(None, ex_id))
    theirs = variant_for(learner, ex_id)
    assert PARTS[2]._solution(theirs) != default  # their code has another shape or other settings
    verdict, _ = _part(ex_id, 2, default, variant=theirs)
    other_settings = "betas=(0.9, 0.99)" in render(theirs) and BUGS[theirs.bug].where == "broken_setup"
    assert verdict.outcome is (Outcome.INCORRECT if other_settings else Outcome.CORRECT), verdict.message


def test_the_repaired_line_keeps_its_settings_but_may_be_written_another_way():
    grace = variant_for("grace", "C")  # Adam(model.fc2.parameters(), lr=0.03, betas=(0.9, 0.99))
    head = "def fixed_setup(seed, device):\n    torch.manual_seed(seed)\n    model = TinyNet().to(device)\n"
    head += "    model.train()\n"
    tail = "    return model, optimizer\n"
    answers = {
        "optimizer = torch.optim.Adam(model.parameters(), betas=(0.9, 0.99), lr=0.03)": Outcome.CORRECT,
        "optimizer = torch.optim.Adam(list(model.parameters()), lr=3e-2, betas=(0.90, 0.99))": (
            Outcome.CORRECT
        ),
        "optimizer = torch.optim.Adam(model.parameters(), lr=0.03)": Outcome.INCORRECT,  # betas lost
        "optimizer = torch.optim.Adam(model.parameters(), lr=0.03, betas=(0.8, 0.99))": Outcome.INCORRECT,
    }
    for line, expected in answers.items():
        verdict, _ = _part("C", 2, head + "    " + line + "\n" + tail, variant=grace)
        assert verdict.outcome is expected, (line, verdict.message)


_WARMUP_SETUP = (
    "def fixed_setup(seed, device):\n"
    "    torch.manual_seed(seed)\n"
    "    model = TinyNet().to(device)\n"
    "    optimizer = torch.optim.Adam(model.parameters(), lr=0.03)\n"
    "{warmup}"
    "    return model, optimizer\n"
)
_HOOK = "    optimizer.register_step_post_hook(lambda *args: warmup.step())\n"


def _warmup(factor: str) -> str:
    line = f"    warmup = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: {factor})\n"
    return _WARMUP_SETUP.format(warmup=line + _HOOK)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (_warmup("min(1.0, (step + 1) / 100)"), Outcome.CORRECT),  # the reference, as solution() shows it
        (_warmup("min(1, (step + 1) / 100)"), Outcome.CORRECT),  # written another way
        (_warmup("min(1.0, step / 100)"), Outcome.CORRECT),  # a warm-up that starts at 0 and rises
        (_warmup("1.0"), Outcome.CORRECT),  # no warm-up left, but lr 0.03 as every setup: accepted
        (_warmup("(step + 1) / 100"), Outcome.INCORRECT),  # no ceiling: lr 0.07 at step 240
        (_warmup("step // 10"), Outcome.INCORRECT),  # integer division kept: 0, then 0.03, 0.06, ...
        (_warmup("step // 100"), Outcome.INCORRECT),  # unchanged
        (_warmup("0.0"), Outcome.INCORRECT),  # still no step moves anything
        (_WARMUP_SETUP.format(warmup=""), Outcome.CORRECT),  # the warm-up deleted: trains as "1.0" does
        (_warmup("step // 100").replace("lr=0.03", "lr=0.3"), Outcome.INCORRECT),  # another setting changed
    ],
)
def test_the_warm_up_that_holds_lr_at_zero_is_repaired_only_by_a_warm_up_that_rises(source, expected):
    verdict, _ = _part("M1", 2, source, variant=Variant("N"))
    assert verdict.outcome is expected, verdict.message


def test_the_warm_up_bug_is_proven_by_parameters_that_never_move():
    variant = Variant("N")
    verdict, _ = _part("M1", 1, PARTS[1]._solution(variant), variant=variant)
    assert verdict.outcome is Outcome.CORRECT, verdict.message
    assert "integer division" in verdict.message
