"""An answer may use what an earlier ordinary cell of the notebook defined (a model built before, a
helper, an import, a constant): the grader sends those cells, found by the names the answer reads, into
the answer's run before it, and judges the answer by what it does. A cell it needs that raises is that
part's error, naming the cell and the line; cells it does not need are never run. The graded
notebook's own check does the same with the kernel's history, cell magics included. No kernel: the
hidden runs run in this process or in a plain child process, as the grader's kernel runs them."""

from __future__ import annotations

from types import SimpleNamespace

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager
from solved import committed_solution

from autograd_course.answer_cells import GIVEN, earlier_cells, free_names
from autograd_instructor.challenge.hidden import run_hidden
from autograd_instructor.challenge.notebooks import challenge_cells
from autograd_instructor.grading.fixcells import run_apart
from autograd_instructor.grading.grade import answer_sources
from autograd_instructor.grading.judging import judge_part
from autograd_instructor.grading.proofcells import proof_apart

# Exercise D's default variant: zero_grad is missing, so the gradients pile up from step to step.
_HELPERS = (
    "import math as maths\n"
    "STEPS = 3\n"
    "def norms(n):\n    model, optimizer = broken_setup(seed, device)\n    out = []\n"
    "    for _ in range(n):\n        broken_step(model, optimizer, inputs, targets)\n"
    "        out.append(grad_norm(model))\n    return out\n"
)
_MY_STEP = (
    "def my_step(model, optimizer, inputs, targets):\n    optimizer.zero_grad()\n"
    "    loss = compute_loss(model, inputs, targets)\n    loss.backward()\n    optimizer.step()\n"
    "    return loss\n"
)
_PROOF = "evidence = norms(STEPS)\nassert maths.isfinite(evidence[0])\nstage = Stage.GRADS_ACCUMULATING\n"
_FIX = (
    "def fixed_step(model, optimizer, inputs, targets):\n"
    "    return my_step(model, optimizer, inputs, targets)\n"
)


def _code(source: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_code_cell(source)


def _notebook(earlier: list[str], proof: str = _PROOF, fix: str = _FIX) -> nbformat.NotebookNode:
    """Exercise D's solution notebook with ordinary cells put before part 1's answer, and answers."""
    nb = committed_solution("D")
    first = next(i for i, m in challenge_cells(nb) if m["role"] == "answer")
    nb.cells[first:first] = [_code(s) for s in earlier]
    for i, m in challenge_cells(nb):
        if m["role"] == "answer":
            nb.cells[i].source = proof if m["part"] == 1 else fix
    return nb


def _judge(tmp_path, nb, part: int):
    answer = answer_sources(nb)[("D", part)]
    if part == 1:
        proof_apart("D", None, answer, tmp_path)
    else:
        run_apart("D", None, answer, tmp_path)
    return answer, judge_part(tmp_path, "D", part, answer, None)


def test_the_earlier_cells_an_answer_needs_are_found_by_the_names_it_reads():
    cells = [
        (1, "import math as maths"),
        (2, "scale = maths.pi"),
        (3, "def helper(x):\n    return x * scale"),
        (4, "print(1 / 0)"),  # defines nothing the answer reads: never run
        (5, "scale = 2.0"),  # the last definition before the answer is the one it sees
        (6, "model = TinyNet()"),
    ]
    answer = "def f():\n    return helper(model(inputs))\nvalue = f()"
    assert free_names(answer) == {"helper", "model", "inputs"}
    assert [n for n, _ in earlier_cells(cells, answer, GIVEN)] == [3, 5, 6]
    assert [n for n, _ in earlier_cells(cells, "y = helper(1)\nx = maths.e", GIVEN)] == [1, 3, 5]
    assert earlier_cells(cells, "inputs = inputs * 2\nseed = 3", GIVEN) == []  # given by every run
    imports = [(1, "from autograd_course.graded import challenge\nex = challenge('A', globals())")]
    assert earlier_cells(imports, "stage = Stage.OK\nevidence = 1.0\nprint(ex)", GIVEN) == []


@pytest.mark.parametrize("part", [1, 2])
def test_an_answer_using_names_from_earlier_cells_passes(tmp_path, part):
    nb = _notebook(
        [
            "x = (",  # a scratch cell that does not parse: never graded, never run
            "raise RuntimeError('a scratch cell the answers do not need')",
            _HELPERS,
            "%%time\n" + _MY_STEP,
            "model, optimizer = broken_setup(seed, device)",
        ]
    )
    answer, (verdict, flags, problem, trail) = _judge(tmp_path, nb, part)
    assert len(answer.prelude) == 1 and ("norms" if part == 1 else "my_step") in answer.prelude[0][1]
    assert not problem and verdict.status == "passed", (verdict.message, trail)
    assert flags == []


@pytest.mark.parametrize("part", [1, 2])
def test_a_needed_earlier_cell_that_raises_is_the_parts_error_naming_the_cell_and_line(tmp_path, part):
    broken = ("STEPS = 3\nx = [][1]\n" + _HELPERS) if part == 1 else ("y = 1\nz = {}['k']\n" + _MY_STEP)
    nb = _notebook([broken])
    cell = next(i for i, c in enumerate(nb.cells) if c.source == broken) + 1
    _, (verdict, _, problem, _) = _judge(tmp_path, nb, part)
    assert verdict.status == "failed"
    assert problem.startswith(f"cell {cell} (which your answer uses) raised "), problem
    assert "on line 2" in problem, problem


def test_without_the_earlier_cell_the_answer_is_an_error_naming_the_name(tmp_path):
    nb = _notebook(["print('nothing defined here')"])
    _, (verdict, _, problem, _) = _judge(tmp_path, nb, 1)
    assert verdict.status == "failed" and "NameError" in problem and "norms" in problem, problem


def test_an_earlier_cell_that_changes_torch_is_flagged_and_judged_by_behaviour(tmp_path):
    """What the earlier cell does is screened and watched like the answer itself."""
    patch = "torch.Tensor.detach = lambda self: self\nSTEPS = 3\n" + _HELPERS.replace("STEPS = 3\n", "")
    nb = _notebook([patch])
    _, (verdict, flags, _, _) = _judge(tmp_path, nb, 1)
    assert verdict.status == "failed"
    assert any("torch.Tensor.detach" in f for f in flags), flags


def _graded_check(tmp_path, history: list[str]):
    from test_graded_behaviour import _graded

    from helpers import Stage

    (tmp_path / "nb").mkdir()
    ex, ns = _graded(tmp_path / "nb", "ada", "D")
    raw = ["", *history, "ex.part1.check()"]  # as typed; `In` holds the cells as IPython ran them
    shell = SimpleNamespace(history_manager=SimpleNamespace(input_hist_raw=raw))
    ran = [TransformerManager().transform_cell(s) for s in raw]
    ns |= {"In": ran, "get_ipython": lambda: shell, "stage": Stage.OK, "evidence": 1.0}
    return ex.part1.verdict()


@pytest.mark.parametrize(
    "history",
    [
        [_HELPERS, _PROOF],
        [_HELPERS, "%%time\n" + _PROOF],
        ["%%time\n" + _HELPERS + _PROOF],
    ],
    ids=["earlier cell", "earlier cell and a cell magic", "a cell magic"],
)
def test_the_graded_check_runs_the_earlier_cells_as_the_grader_does(tmp_path, history):
    verdict = _graded_check(tmp_path, history)
    assert verdict.status == "passed" and "graded" in verdict.message, verdict.message


def test_the_graded_check_names_an_earlier_cell_that_raises(tmp_path):
    verdict = _graded_check(tmp_path, ["STEPS = 3\nx = [][1]\n" + _HELPERS, _PROOF])
    assert verdict.status == "failed" and "[1]" in verdict.message and "on line 2" in verdict.message


def test_run_hidden_takes_the_earlier_cells_too(tmp_path):
    run_hidden("D", None, 1, _PROOF, str(tmp_path), [(3, _HELPERS)])
    nb = _notebook([_HELPERS])
    assert judge_part(tmp_path, "D", 1, answer_sources(nb)[("D", 1)], None).verdict.status == "passed"


def test_answers_the_same_in_words_but_not_in_the_earlier_cells_they_use_are_no_copies():
    from autograd_instructor.grading.copies import answer_digest

    mine = answer_sources(_notebook([_HELPERS]))[("D", 1)]
    other = answer_sources(_notebook([_HELPERS.replace("grad_norm(model)", "float(grad_norm(model))")]))
    assert mine.source == other[("D", 1)].source
    assert answer_digest(mine.judged()) != answer_digest(other[("D", 1)].judged())
    assert answer_digest(mine.judged()) == answer_digest(
        answer_sources(_notebook([_HELPERS]))[("D", 1)].judged()
    )
