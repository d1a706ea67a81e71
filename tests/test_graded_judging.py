"""The grader's verdicts come from the answer cells' source, run on hidden inputs: honest work passes,
and each way of getting the points without the skill earns 0 or is flagged. No kernel: the hidden runs
run in this process, as the grader's own kernel runs them."""

from __future__ import annotations

import random

import pytest
from solved import solved_for

from autograd_course import graded_part1
from autograd_course.harness_core import RUN_TIME_CODE
from autograd_instructor.challenge.answer_source import answer_source, prune, screen
from autograd_instructor.challenge.catalogue import BUGS, render
from autograd_instructor.challenge.hidden import bug_shows, run_hidden
from autograd_instructor.challenge.notebooks import challenge_cells
from autograd_instructor.challenge.variants import Shape, Variant, shape_number
from autograd_instructor.grading.fixcells import run_here
from autograd_instructor.grading.grade import answer_sources
from autograd_instructor.grading.judging import judge_part
from autograd_instructor.grading.proofcells import proof_apart


def _run(tmp_path, ex_id: str, learner: str | None, part: int, source: str):
    answer = answer_source(source, part)
    if answer.source and part == 2:
        run_here(ex_id, learner, answer.source, tmp_path)
    elif answer.source:  # a flagged answer runs too: the screen warns, the evidence decides
        run_hidden(ex_id, learner, part, answer.source, str(tmp_path))
    return judge_part(tmp_path, ex_id, part, answer, learner)


def _judge(tmp_path, ex_id: str, learner: str | None, part: int, source: str):
    verdict, flags, problem, _ = _run(tmp_path, ex_id, learner, part, source)
    assert not problem
    return verdict, flags


def _answer(learner: str | None, ex_id: str, part: int) -> str:
    nb = solved_for(learner, ex_id)
    return next(
        nb.cells[i].source for i, m in challenge_cells(nb) if m["role"] == "answer" and m["part"] == part
    )


@pytest.mark.parametrize(("learner", "ex_id"), [(None, "A"), ("alice", "M1"), ("bob", "M2"), ("carol", "D")])
def test_honest_answers_pass_on_hidden_runs(tmp_path, learner, ex_id):
    for part in (1, 2):
        verdict, flags = _judge(tmp_path, ex_id, learner, part, _answer(learner, ex_id, part))
        assert verdict.status == "passed", verdict.message
        assert flags == []


def test_evidence_typed_by_hand_does_not_prove_a_stage(tmp_path):
    typed = "stage = Stage.GRADS_ACCUMULATING\nevidence = [3.3083, 6.1208, 8.5233]"
    verdict, _ = _judge(tmp_path, "D", None, 1, typed)
    assert verdict.status == "failed"


def test_a_forged_error_is_flagged_and_fails(tmp_path):
    forged = (
        "try:\n    exec(compile('raise RuntimeError(\"element 0 of tensors does not require grad\")',"
        " '<broken code>', 'exec'))\nexcept RuntimeError as e:\n    evidence = e\n"
        "stage = Stage.LOSS_NOT_IN_GRAPH"
    )
    verdict, flags, problem, _ = _run(tmp_path, "A", None, 1, forged)
    assert verdict.status == "failed" and RUN_TIME_CODE in problem
    assert any(f.startswith("warning") and "exec" in f for f in flags)  # the screen's early warning
    assert any(RUN_TIME_CODE in f for f in flags if not f.startswith("warning"))  # what the run did


def test_the_doctor_is_not_there_in_the_hidden_run(tmp_path):
    oracle = (
        "model, optimizer = broken_setup(seed, device)\n"
        "d = diagnose(lambda: broken_step(model, optimizer, inputs, targets), model, optimizer)\n"
        "stage, evidence = d.stage, d"
    )
    verdict, _, problem, _ = _run(tmp_path, "D", None, 1, oracle)
    assert verdict.status == "failed" and "no doctor" in problem and "line 2" in problem


def test_a_pile_of_every_report_proves_nothing(tmp_path):
    pile = (
        "model, optimizer = broken_setup(seed, device)\n"
        "norms = []\n"
        "for _ in range(3):\n    broken_step(model, optimizer, inputs, targets)\n"
        "    norms.append(grad_norm(model))\n"
        "evidence = [*norms, gradient_report(model), parameter_report(model)]\n"
        "stage = Stage.GRADS_ACCUMULATING"
    )
    verdict, _ = _judge(tmp_path, "D", None, 1, pile)
    assert verdict.status == "failed", verdict.message


def test_the_given_code_under_if_false_does_not_decide_a_textbook_fix(tmp_path):
    """Part 2 is judged by what the training does: a textbook step is a correct fix for a missing
    zero_grad, whatever dead code sits beside it."""
    given = _answer("carol", "D", 2).replace("def fixed_step", "def _unused")
    generic = (
        "def fixed_step(model, optimizer, inputs, targets):\n    optimizer.zero_grad()\n"
        "    loss = compute_loss(model, inputs, targets)\n    loss.backward()\n    optimizer.step()\n"
        "    return loss\n"
    )
    dead = generic + "if False:\n" + "\n".join("    " + line for line in given.splitlines())
    verdict, _ = _judge(tmp_path, "D", "carol", 2, dead)
    assert verdict.status == "passed", verdict.message


def test_a_part2_screen_hit_is_a_warning_the_behaviour_decides(tmp_path):
    patch = "torch.Tensor.detach = torch.Tensor.detach\n" + _answer(None, "A", 2)
    answer = answer_source(patch, 2)
    assert "torch.Tensor.detach" in answer.source and answer.flags
    verdict, flags = _judge(tmp_path, "A", None, 2, patch)
    assert verdict.status == "passed" and any(f.startswith("warning: line 1") for f in flags)


def test_a_cell_that_raises_after_its_answer_is_judged_on_what_it_set(tmp_path):
    source = _answer(None, "A", 1) + "\nraise ValueError('a stray line')"
    verdict, _ = _judge(tmp_path, "A", None, 1, source)
    assert verdict.status == "passed"
    early = "raise ValueError('too soon')\n" + _answer(None, "A", 1)
    _, _, problem, _ = _run(tmp_path, "A", None, 1, early)
    assert problem == "your answer cell raised ValueError on line 1: too soon"


def test_only_answer_cells_are_read():
    nb = solved_for(None, "A")
    nb.cells.insert(
        6,
        type(nb.cells[0])(
            cell_type="code",
            source="torch.Tensor.detach = lambda s: s",
            metadata={},
            outputs=[],
            execution_count=None,
        ),
    )
    sources = answer_sources(nb)
    assert sources, "a solved notebook has answer cells"
    assert all("detach = " not in a.source for a in sources.values())


@pytest.mark.parametrize(
    ("code", "dropped"),
    [
        ("def f():\n    return 1\n    x = 2\n", "after return"),
        ("if False:\n    x = 1\n", "never runs"),
        ("while 0:\n    pass\n", "never runs"),
    ],
)
def test_pruning_drops_code_that_never_runs(code, dropped):
    source, why = prune(code, 1)
    assert any(dropped in w for w in why)
    assert "x = " not in source


def test_screen_names_what_reaches_into_the_tools():
    assert screen("import helpers\nhelpers.grad_norm = len") == ["line 2: assigns into helpers.grad_norm"]
    assert screen("setattr(torch, 'x', 1)") == ["line 1: calls setattr()"]
    assert screen("x = torch.ones(2)\nx[0] = 1") == []


def test_in_practice_every_verdict_call_is_an_attempt():
    from autograd_course.checks import attempts_per_part  # noqa: F401 (the grader's counter reads these records)
    from autograd_instructor.challenge import challenge
    from helpers import Stage

    ns: dict = {"seed": 0, "device": "cpu", "evidence": [1.0]}
    ex = challenge("A", ns, learner=None)
    for stage in Stage:
        ns["stage"] = stage
        ex.part1.verdict()
    assert len([u for u in ex.usage if u["kind"] == "check"]) == len(Stage)


def test_what_an_answer_reaches_for_is_reported_even_when_it_catches_the_refusal(tmp_path):
    sneaky = "try:\n    open('/root/.ssh/id_rsa').read()\nexcept OSError:\n    pass\n" + _answer(None, "A", 1)
    answer = answer_source(sneaky, 1)
    run_hidden("A", None, 1, answer.source, str(tmp_path))
    _, flags, problem, _ = judge_part(tmp_path, "A", 1, answer, None)
    assert "opened /root/.ssh/id_rsa" in problem and flags and "refused" in problem


@pytest.mark.parametrize(
    ("ex_id", "proof"),
    [
        # the loss on its own: no grad_fn (another proof than the reference's error and report)
        (
            "A",
            "model, optimizer = broken_setup(seed, device)\n"
            "evidence = debug_tensor('loss', compute_loss(model, inputs, targets))\n"
            "stage = Stage.LOSS_NOT_IN_GRAPH",
        ),
        # gradient norms over three steps, measured with plain torch instead of grad_norm
        (
            "D",
            "model, optimizer = broken_setup(seed, device)\nnorms = []\n"
            "for _ in range(3):\n    broken_step(model, optimizer, inputs, targets)\n"
            "    norms.append(grad_norm(model))\n"
            "evidence = norms\nstage = Stage.GRADS_ACCUMULATING",
        ),
    ],
)
def test_a_proof_written_another_way_passes(tmp_path, ex_id, proof):
    verdict, flags = _judge(tmp_path, ex_id, "noor", 1, proof)
    assert verdict.status == "passed", verdict.message
    assert flags == []


def test_a_repair_written_by_hand_on_a_learners_own_code_passes(tmp_path):
    """noor's own broken_step, with one line the reference does not write: zeroing through the model."""
    from autograd_instructor.challenge.catalogue import render
    from autograd_instructor.challenge.draw import variant_for
    from autograd_instructor.challenge.parts import function_source

    broken = function_source(render(variant_for("noor", "D")), "broken_step")
    lines = broken.replace("def broken_step(", "def fixed_step(", 1).splitlines()
    fixed = "\n".join([lines[0], "    model.zero_grad(set_to_none=True)  # my own repair", *lines[1:]])
    verdict, flags = _judge(tmp_path, "D", "noor", 2, fixed)
    assert verdict.status == "passed", verdict.message
    assert flags == []


@pytest.mark.parametrize(("learner", "ex_id"), [("s3", "M2"), ("s4", "M1"), ("s38", "M2")])
def test_a_right_proof_passes_where_the_first_seed_drawn_would_hide_the_bug(tmp_path, learner, ex_id):
    """Bug J's loss stays finite on some seeds: those are never hidden runs (each learner here had one)."""
    from autograd_instructor.challenge import variant_for
    from autograd_instructor.challenge.hidden import bug_shows, hidden_runs, hidden_seed

    assert variant_for(learner, ex_id).bug == "J"
    first = [hidden_seed(learner, ex_id, 1, k, 0) for k in range(2)]
    runs = hidden_runs(learner, ex_id, 1)
    assert any(not bug_shows(v, s) for (v, _), s in zip(runs, first)), "a first draw hid the bug"
    assert all(bug_shows(v, s) for v, s in runs)
    verdict, _ = _judge(tmp_path, ex_id, learner, 1, _answer(learner, ex_id, 1))
    assert verdict.status == "passed", verdict.message


def test_the_toolkits_own_doctor_is_gone_from_the_graders_kernel(tmp_path):
    """`import helpers as toolkit; toolkit.diagnose(...)`: the grader's part-1 kernel removes the
    doctor from the toolkit itself before any answer runs (here: a process like that kernel)."""
    oracle = (
        "import helpers as toolkit\nmodel, optimizer = broken_setup(seed, device)\n"
        "d = toolkit.diagnose(lambda: broken_step(model, optimizer, inputs, targets), model, optimizer)\n"
        "stage, evidence = d.stage, d"
    )
    proof_apart("D", None, oracle, tmp_path)
    verdict, _, problem, _ = judge_part(tmp_path, "D", 1, answer_source(oracle, 1), None)
    assert verdict.status == "failed" and "no doctor" in problem


def test_records_that_claim_another_variant_or_seed_are_judged_on_the_graders_own(tmp_path):
    """One cell that rewrites the hidden runs' records (the default variant, the seed it ran, its real
    evidence): the grader reads the stage and evidence only, and judges them on the learner's runs."""
    import json

    from autograd_instructor.challenge import variant_for
    from autograd_instructor.challenge.hidden import hidden_path

    honest = _answer(None, "A", 1)
    run_hidden("A", None, 1, honest, str(tmp_path))  # the default variant's real evidence...
    assert variant_for("zed", "A") != variant_for(None, "A")
    for k in range(2):  # ...claimed as zed's records, with the default variant and seed written in
        path = hidden_path(tmp_path, "A", 1, k)
        record = json.loads(path.read_text()) | {"variant": variant_for(None, "A").to_json()}
        path.write_text(json.dumps(record))
    assert judge_part(tmp_path, "A", 1, answer_source(honest, 1), None).verdict.status == "passed"
    verdict, _, problem, _ = judge_part(tmp_path, "A", 1, answer_source(honest, 1), "zed")
    assert not problem and verdict.status == "failed", verdict.message


_NORMS = (
    "def norms(n):\n    model, optimizer = broken_setup(seed, device)\n    out = []\n"
    "    for _ in range(n):\n        broken_step(model, optimizer, inputs, targets)\n"
    "        out.append(grad_norm(model))\n    return out\n"
)


@pytest.mark.parametrize(
    "proof",
    [
        "%%time\n" + _NORMS + "evidence = norms(3)\nstage = Stage.GRADS_ACCUMULATING",
        _NORMS + "def prove():\n    global evidence, stage\n    evidence = norms(3)\n"
        "    stage = Stage.GRADS_ACCUMULATING\nprove()",
        _NORMS + "globals()['evidence'] = norms(3)\nstage = Stage.GRADS_ACCUMULATING",
        "try:\n"
        + "".join("    " + line + "\n" for line in _NORMS.splitlines())
        + "    evidence = norms(3)\nexcept Exception as exc:\n    print(exc)\n"
        + "stage = Stage.GRADS_ACCUMULATING",
        "%time x = 1\n"
        + _NORMS
        + "evidence = norms(3)  # a helper, a magic line\nstage = Stage.GRADS_ACCUMULATING",
    ],
    ids=["cell magic", "global", "globals()", "try/except", "line magic"],
)
def test_honest_proof_styles_pass_unflagged(tmp_path, proof):
    verdict, flags = _judge(tmp_path, "D", None, 1, proof)
    assert verdict.status == "passed", verdict.message
    assert flags == []


@pytest.mark.parametrize(
    ("attack", "reach"),
    [
        (
            "proof = torch.sys.modules['autograd_instructor.challenge.catalogue'].BUGS['D']._proof\n",
            "reaches torch.sys",
        ),
        ("run = __builtins__['exec']\n", "reaches __builtins__"),
        ("run = grad_norm.__globals__.get('torch')\n", "reaches grad_norm.__globals__"),
    ],
    ids=["torch.sys.modules", "__builtins__['exec']", "__globals__"],
)
def test_a_part1_answer_reaching_the_interpreters_tables_is_flagged_and_judged_by_its_evidence(
    tmp_path, attack, reach
):
    """The screen warns the instructor and never decides: with nothing else the answer fails, and a
    right proof beside the reach still passes (the sandbox, not the screen, keeps the course away:
    test_graded_earlier_cells.py runs such attacks there)."""
    verdict, flags = _judge(
        tmp_path, "D", None, 1, attack + "stage, evidence = Stage.GRADS_ACCUMULATING, 1.0\n"
    )
    assert verdict.status == "failed" and any(f.startswith("warning: ") and reach in f for f in flags), flags
    verdict, flags = _judge(tmp_path, "D", None, 1, attack + _answer(None, "D", 1))
    assert verdict.status == "passed" and any(f.startswith("warning: ") and reach in f for f in flags), flags


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_every_bugs_reference_proof_shows_on_the_notebooks_seed(bug):
    """bug_shows (which seeds may be hidden runs) judges the reference proof as the grader judges an
    answer: an error counts only through the broken code's own code objects, so it must collect them."""
    assert bug_shows(Variant(bug), 0)


# Bug J in this shape (a learner's, in CI) keeps a finite loss on about one seed in six: on this one.
_SOMETIMES_HIDDEN, _HIDING_SEED = Shape((0, 0, 0, 0, 2, 0, 0, 0, 0)), 175055928


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_the_graded_checks_fresh_seed_shows_the_bug_as_the_notebooks_seed_does(bug, monkeypatch):
    """The graded notebook's part-1 check runs the answer on a fresh seed alike the notebook's: the
    reference proof proves the bug on every seed it picks, even when the first seed drawn hides it."""
    if bug == "J":
        assert not bug_shows(Variant(bug, _SOMETIMES_HIDDEN), _HIDING_SEED)
    draws = random.Random(bug)
    first = iter([_HIDING_SEED - 1])
    monkeypatch.setattr(graded_part1.secrets, "randbelow", lambda n: next(first, None) or draws.randrange(n))
    for shape in (_SOMETIMES_HIDDEN, shape_number(draws.randrange(10**6))):
        variant = Variant(bug, shape)
        for _ in range(3):
            seed, trace = graded_part1.alike_seed(render(variant))
            assert trace.seed == seed and bug_shows(variant, seed), (variant, seed)
