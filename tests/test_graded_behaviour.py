"""Part 2 is judged by what the fixed training does, replayed by the grader: any correct fix passes
however it is written, and a fix that fakes training or patches torch, the model or the optimizer
fails. No kernel: part 2's hidden runs run in this process (fixcells.run_here), as the grader's
course-less kernel runs them; the grader's replay then judges what they returned."""

from __future__ import annotations

import pytest

import helpers
from autograd_course.fixing.fixcheck import CHECKS
from autograd_course.harness_core import FIXABLE
from autograd_instructor.challenge.answer_source import answer_source
from autograd_instructor.grading.fixcells import run_apart, run_here
from autograd_instructor.grading.judging import judge_part


def _judge(tmp_path, ex_id: str, source: str, learner: str | None = None, apart: bool = False):
    """Judge one part-2 answer; apart: its runs in another process (an answer that patches torch
    must not patch the grader's own replay, as it never can in a real grading)."""
    answer = answer_source(source, 2)
    (run_apart if apart else run_here)(ex_id, learner, answer.source, tmp_path)
    return judge_part(tmp_path, ex_id, 2, answer, learner)


# Exercise A (default variant): compute_loss detaches the output. Exercise M1: lr read from a key
# the config lacks. Exercise B: fc1 frozen. Exercise D: zero_grad missing.
HONEST = {
    "renamed locals": (
        "A",
        "def fixed_compute_loss(model, inputs, targets):\n    pred = model(inputs)\n"
        "    return F.mse_loss(pred, targets)\n",
    ),
    "an inlined expression": (
        "A",
        "def fixed_compute_loss(model, inputs, targets):\n    return F.mse_loss(model(inputs), targets)\n",
    ),
    "a hand-written mean square": (
        "A",
        "def fixed_compute_loss(model, inputs, targets):\n"
        "    return ((model(inputs) - targets) ** 2).mean()\n",
    ),
    "the body in a helper defined in the cell": (
        "A",
        "def my_loss(out, y):\n    return torch.nn.functional.mse_loss(out, y)\n\n"
        "def fixed_compute_loss(model, inputs, targets):\n    return my_loss(model(inputs), targets)\n",
    ),
    "a config key fixed": (
        "M1",
        "def fixed_setup(seed, device):\n    torch.manual_seed(seed)\n    model = TinyNet().to(device)\n"
        '    config = {"learning_rate": 0.03, "epochs": 40}\n'
        '    optimizer = torch.optim.Adam(model.parameters(), lr=config["learning_rate"])\n'
        "    return model, optimizer\n",
    ),
    "an unused config deleted": (
        "M1",
        "def fixed_setup(seed, device):\n    torch.manual_seed(seed)\n    model = TinyNet().to(device)\n"
        "    return model, torch.optim.Adam(model.parameters(), lr=0.03)\n",
    ),
    "a cell magic on top": (
        "B",
        "%%time\ndef fixed_setup(seed, device):\n    torch.manual_seed(seed)\n"
        "    model = TinyNet().to(device)\n"
        "    optimizer = torch.optim.Adam(model.parameters(), lr=0.03)\n    return model, optimizer\n"
        "print('defined')\n",
    ),
    "a global counter and top-level scratch code": (
        "D",
        "steps = 0\nmodel, optimizer = broken_setup(seed, device)\n"
        "print(compute_loss(model, inputs, targets))\n"
        "def fixed_step(model, optimizer, inputs, targets):\n    global steps\n    steps += 1\n"
        "    model.zero_grad(set_to_none=True)\n    loss = compute_loss(model, inputs, targets)\n"
        "    loss.backward()\n    optimizer.step()\n    return loss\n",
    ),
}


@pytest.mark.parametrize("style", sorted(HONEST))
def test_a_correct_fix_passes_however_it_is_written(tmp_path, style):
    ex_id, source = HONEST[style]
    verdict, flags, problem, trail = _judge(tmp_path, ex_id, source)
    assert not problem
    assert verdict.status == "passed", verdict.message
    assert not [f for f in flags if not f.startswith("warning")]
    assert [c["status"] for c in trail["checks"]] == ["passed"] * len(CHECKS)


def test_what_the_fix_printed_and_returned_is_in_the_trail(tmp_path):
    _, _, _, trail = _judge(tmp_path, "B", HONEST["a cell magic on top"][1])
    assert "defined" in trail["printed"]
    assert "40 steps" in trail["returned"] and len(trail["ran"]) == 2


def test_a_wrong_fix_fails_naming_the_behaviour(tmp_path):
    # detach gone, but the loss returned is the sum, not the mean: another loss than the model trains on
    summed = (
        "def fixed_compute_loss(model, inputs, targets):\n    return ((model(inputs) - targets) ** 2).sum()\n"
    )
    verdict, _, problem, trail = _judge(tmp_path, "A", summed)
    assert not problem and verdict.status == "failed"
    assert "mean squared error" in verdict.message
    assert {c["name"]: c["status"] for c in trail["checks"]}["true_loss"] == "failed"


def test_a_fix_that_raises_records_its_checks_as_not_run(tmp_path):
    broken = "def fixed_compute_loss(model, inputs, targets):\n    return model(inputs).nonexistent()\n"
    verdict, _, problem, trail = _judge(tmp_path, "A", broken)
    assert not problem
    assert verdict.status == "failed" and "raised" in verdict.message and not verdict.checks
    assert {c["status"] for c in trail["checks"]} == {"not_run"}


def test_a_cell_that_raises_before_defining_anything_is_an_error_naming_the_line(tmp_path):
    _, _, problem, _ = _judge(tmp_path, "A", "x = 1\nraise KeyError('oops')\n")
    assert problem.startswith("your answer cell raised KeyError on line 2")


PATCH_BROKEN_VERBATIM = {
    # fc1 frozen (B): the given setup kept, TinyNet's constructor hides fc1 from the freezing loop
    "TinyNet.__init__ patched in a decorator": (
        "B",
        "def unfreeze(f):\n    old = TinyNet.__init__\n"
        "    def init(self, *a, **k):\n        old(self, *a, **k)\n"
        "        self.fc1.parameters = lambda *a, **k: iter(())\n"
        "    TinyNet.__init__ = init\n    return f\n\n"
        "@unfreeze\ndef fixed_step(model, optimizer, inputs, targets):\n    optimizer.zero_grad()\n"
        "    loss = compute_loss(model, inputs, targets)\n    loss.backward()\n    optimizer.step()\n"
        "    return loss\n",
    ),
    # lr 0 (M1): Adam replaced by one that ignores the lr it is given
    "torch.optim.Adam replaced in a class body": (
        "M1",
        "class Patch:\n    base = torch.optim.Adam\n"
        "    class Fast(torch.optim.Adam):\n        def __init__(self, params, lr=0.0, **kw):\n"
        "            super().__init__(params, lr=0.03, **kw)\n"
        "    torch.optim.Adam = Fast\n\n"
        "def fixed_step(model, optimizer, inputs, targets):\n    optimizer.zero_grad()\n"
        "    loss = compute_loss(model, inputs, targets)\n    loss.backward()\n    optimizer.step()\n"
        "    return loss\n",
    ),
    # lr 0 (M1): Adam.step that moves the weights itself
    "Adam.step patched": (
        "M1",
        "def fast_step(self, closure=None):\n    with torch.no_grad():\n"
        "        for g in self.param_groups:\n            for p in g['params']:\n"
        "                if p.grad is not None:\n                    p -= 0.03 * p.grad.sign()\n\n"
        "torch.optim.Adam.step = fast_step\n\n"
        "def fixed_step(model, optimizer, inputs, targets):\n    optimizer.zero_grad()\n"
        "    loss = compute_loss(model, inputs, targets)\n    loss.backward()\n    optimizer.step()\n"
        "    return loss\n",
    ),
}


@pytest.mark.parametrize("attack", sorted(PATCH_BROKEN_VERBATIM))
def test_a_patch_of_torch_the_model_or_the_optimizer_is_no_fix(tmp_path, attack):
    ex_id, source = PATCH_BROKEN_VERBATIM[attack]
    verdict, flags, problem, _ = _judge(tmp_path, ex_id, source, apart=True)
    assert not problem
    assert verdict.status == "failed" and "trains differently" in verdict.message, verdict.message
    assert not verdict.checks, "it earns nothing"
    assert any("your cell changes torch" in f for f in flags), "the instructor is told"


def test_the_broken_step_in_try_with_a_textbook_step_in_except_is_judged_by_what_ran(tmp_path):
    """A (detach): the broken step raises, the except branch trains on a loss of its own."""
    source = (
        "def fixed_step(model, optimizer, inputs, targets):\n    try:\n"
        "        return broken_step(model, optimizer, inputs, targets)\n    except Exception:\n"
        "        optimizer.zero_grad()\n        out = model(inputs)\n"
        "        loss = F.mse_loss(out, targets)\n        loss.backward()\n        optimizer.step()\n"
        "        return loss\n"
    )
    verdict, _, problem, _ = _judge(tmp_path, "A", source)
    # the fallback is a genuine, complete training step: behaviour says it is a fix
    assert not problem and verdict.status == "passed", verdict.message


def test_a_faked_trajectory_fails_the_replay(tmp_path):
    """A step that moves the weights toward the answer by hand, with the true loss and gradient."""
    source = (
        "def fixed_step(model, optimizer, inputs, targets):\n    optimizer.zero_grad()\n"
        "    loss = F.mse_loss(model(inputs), targets)\n    loss.backward()\n"
        "    with torch.no_grad():\n        for p in model.parameters():\n"
        "            p -= 0.05 * p.grad\n    return loss\n"
    )
    verdict, _, _, trail = _judge(tmp_path, "A", source)
    assert verdict.status == "failed"
    assert {c["name"]: c["status"] for c in trail["checks"]}["params_move"] == "failed"
    assert "update" in verdict.message


def test_an_import_of_the_course_in_the_answer_is_no_way_in(tmp_path):
    """In the grader's kernel the course is not importable (test_graded_sandbox); here it is, so this
    only shows the reference fix, if reached, is judged like any fix: by behaviour."""
    source = "from autograd_instructor.challenge import catalogue\n" + HONEST["renamed locals"][1]
    verdict, flags, _, _ = _judge(tmp_path, "A", source)
    assert any("autograd_instructor" in f for f in flags)
    assert verdict.status == "passed"


def test_every_fixable_function_name_is_known_to_the_harness():
    assert set(FIXABLE) == {"fixed_setup", "fixed_compute_loss", "fixed_step"}


_SETUP = (
    "def fixed_compute_loss(model, inputs, targets):\n    return F.mse_loss(model(inputs), targets)\n\n"
    "def fixed_setup(seed, device):\n    torch.manual_seed(seed)\n    model = TinyNet().to(device)\n"
    "    return model, torch.optim.{optimizer}\n"
)


def _graded(tmp_path, learner: str, ex_id: str):
    """A graded notebook's challenge for one learner, from a variants file like a release writes."""
    import json

    from autograd_course.graded import VARIANTS_FILE, GradedChallenge
    from autograd_course.sealed import entry_key, seal
    from autograd_instructor.challenge import variant_for
    from autograd_instructor.challenge.catalogue import render

    entry = {ex_id: {"code": render(variant_for(learner, ex_id)), "hints1": [], "hints2": []}}
    data = {"format": 2, "learners": {entry_key("tok"): seal(entry, "tok")}}
    (tmp_path / VARIANTS_FILE).write_text(json.dumps(data))
    ns: dict = {"seed": 0, "device": "cpu", "torch": __import__("torch")}
    ns["F"] = ns["torch"].nn.functional
    ns |= {name: getattr(helpers, name) for name in helpers.__all__}  # what the notebook's imports cell gives
    return GradedChallenge(ex_id, ns, learner, tmp_path, "tok"), ns


@pytest.mark.parametrize(
    ("source", "passes"),
    [
        (HONEST["a hand-written mean square"][1], True),
        (HONEST["renamed locals"][1], True),
        # the learner's own parameter names: the grader calls the fix positionally
        ("def fixed_compute_loss(net, x, y):\n    return F.mse_loss(net(x), y)\n", True),
        ("def fixed_compute_loss(*args):\n    return F.mse_loss(args[0](args[1]), args[2])\n", True),
        (
            "def fixed_compute_loss(model, inputs, targets):\n"
            "    return ((model(inputs) - targets) ** 2).sum()\n",
            False,
        ),
        (
            "def fixed_compute_loss(model, inputs, targets):\n    return model(inputs).detach().mean()\n",
            False,
        ),
        # ada's setup builds Adam with betas=(0.9, 0.99): the same optimizer written otherwise trains as
        # the code intends; Adam's default betas (another variant's setup, pasted) does not
        (_SETUP.format(optimizer="Adam(params=list(model.parameters()), betas=[0.9, 0.99], lr=3e-2)"), True),
        (_SETUP.format(optimizer="Adam(model.parameters(), lr=0.03)"), False),
    ],
)
def test_the_graded_notebooks_check_predicts_the_grade(tmp_path, source, passes):
    (tmp_path / "nb").mkdir()
    ex, ns = _graded(tmp_path / "nb", "ada", "A")
    exec(compile(source, "<cell>", "exec"), ns)
    verdict = ex.part2.verdict()
    assert (verdict.status == "passed") is passes, verdict.message
    if not passes:
        assert verdict.message.startswith("on your own code:") and "raised" not in verdict.message[:17]
    graded, _, problem, _ = _judge(tmp_path, "A", source, learner="ada")
    assert not problem and (graded.status == "passed") is passes, graded.message


@pytest.mark.parametrize("learner", ["fay", "bo", "ada"])  # Adam; AdamW(weight_decay=0.0); Adam(betas=...)
def test_the_graded_check_replays_each_optimizer_the_shapes_draw(tmp_path, learner):
    """A right fix passes the check's replay (and the grade) with whichever optimizer the code builds."""
    source = HONEST["renamed locals"][1]
    (tmp_path / "nb").mkdir()
    ex, ns = _graded(tmp_path / "nb", learner, "A")
    exec(compile(source, "<cell>", "exec"), ns)
    verdict = ex.part2.verdict()
    assert verdict.status == "passed", verdict.message
    graded, _, problem, _ = _judge(tmp_path, "A", source, learner=learner)
    assert not problem and graded.status == "passed", graded.message


@pytest.mark.parametrize("style", sorted(HONEST))
def test_the_practice_check_agrees_with_the_grade(tmp_path, style):
    """The practice notebook's check judges the same behaviour, on the notebook's own seed."""
    from learner import notebook, run_cell

    from autograd_instructor.challenge import variant_for
    from autograd_instructor.challenge.answer_source import plain_python

    ex_id, source = HONEST[style]
    ns, ex = notebook(ex_id, variant_for(None, ex_id))
    run_cell(ns, plain_python(source))  # the notebook runs the magic; its code is what matters here
    practice = ex.part2.verdict()
    graded, _, problem, _ = _judge(tmp_path, ex_id, source)
    assert not problem and practice.status == graded.status == "passed", practice.message


_PROOF_A = (
    "model, optimizer = broken_setup(seed, device)\n"
    "with expect_error(RuntimeError) as caught:\n    broken_step(model, optimizer, inputs, targets)\n"
    "stage, evidence = Stage.LOSS_NOT_IN_GRAPH, [caught.exception, torch.is_grad_enabled()]\n"
)
_PART1 = {  # answer cell -> (what the graded check must say, or None: the form note; grade passes)
    "a self-contained proof": (_PROOF_A, None, True),
    "a model no cell before it defines": (
        _PROOF_A.split("\n", 1)[1],
        "define everything it uses",
        False,
    ),
    "an error typed by hand": (
        "stage = Stage.LOSS_NOT_IN_GRAPH\n"
        "evidence = [RuntimeError('element 0 of tensors does not require grad and does not have a grad_fn'),"
        " True]\n",
        "the broken code did not raise",
        False,
    ),
    "a number typed by hand": (
        "stage, evidence = Stage.GRAD_MAGNITUDE, 1e-13\n",
        "does not match what your broken code produces",
        False,
    ),
    "a typed report object": (
        "class Report:\n    rows = []\nstage, evidence = Stage.LOSS_NOT_IN_GRAPH, Report()\n",
        "cannot read",
        False,
    ),
}


@pytest.mark.parametrize("case", sorted(_PART1))
def test_the_graded_part_one_check_predicts_the_grade(tmp_path, case):
    """The graded check runs the answer cell as the grader does, on the learner's own code:
    what it says fails fails in `grade`; what it lets through passes there (never naming the stage)."""
    from autograd_instructor.grading.proofcells import proof_apart
    from helpers import Stage

    source, says, passes = _PART1[case]
    (tmp_path / "nb").mkdir()
    ex, ns = _graded(tmp_path / "nb", "ada", "A")
    ns["model"] = ns["optimizer"] = object()  # what an earlier cell left in the learner's kernel
    ns |= {"In": ["", "import helpers", source, "ex.part1.check()"], "stage": Stage.OK, "evidence": 1.0}
    verdict = ex.part1.verdict()
    if says is None:
        assert verdict.status == "passed" and "graded" in verdict.message, verdict.message
    else:
        assert verdict.status == "failed" and says in verdict.message, verdict.message
    assert "LOSS_NOT_IN_GRAPH" not in verdict.message
    answer = answer_source(source, 1)
    proof_apart("A", "ada", answer.source, tmp_path)
    graded = judge_part(tmp_path, "A", 1, answer, "ada")
    assert (graded.verdict.status == "passed") is passes, graded.verdict.message


def test_every_variants_intended_optimizer_is_its_given_one():
    """The graded check replays each update with an optimizer of the class and settings the given setup
    builds; the grader replays with the intended code's. They are the same in every bug and shape
    slot (lr aside, which both take from each step as it ran)."""
    import random

    from autograd_instructor.challenge.catalogue import BUGS, build_broken
    from autograd_instructor.challenge.parts import reference_namespace
    from autograd_instructor.challenge.variants import Shape, Variant, shape_number

    def settings(optimizer):
        return type(optimizer), {k: v for k, v in optimizer.defaults.items() if k != "lr"}

    draws = random.Random(0)
    seen = set()
    for bug in BUGS:
        for shape in (Shape(), *(shape_number(draws.randrange(10**6)) for _ in range(3))):
            variant = Variant(bug, shape)
            given = build_broken(variant)["broken_setup"](0, "cpu")[1]
            intended = reference_namespace(variant)["broken_setup"](0, "cpu")[1]
            assert settings(given) == settings(intended), variant
            seen.add(type(given).__name__)
    assert len(seen) > 1  # the shapes draw more than one optimizer: a pasted setup can be wrong
