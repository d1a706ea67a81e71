"""The screen warns and never decides: an answer the screen flags still runs, in the sandbox, and its
verdict comes from what it did there. An attack that reaches the interpreter's tables for the course
finds nothing (the sandbox hides it) and earns nothing, flagged; an honest answer the screen happens
to flag (an `import sys` for a print) passes, flagged for the instructor to look at. Part 1's cells
run in bubblewrap as the grader sends them (test_graded_isolation.py's way), no kernel."""

from __future__ import annotations

import pytest
from test_graded_isolation import _in_sandbox, bwrap  # noqa: F401  (bwrap: a fixture)

from autograd_course.execution.sandbox import Sandbox
from autograd_instructor.challenge.answer_source import answer_source
from autograd_instructor.grading.grade import part_sandbox
from autograd_instructor.grading.judging import judge_part
from autograd_instructor.grading.proofcells import proof_cells

_CATALOGUE = "autograd_instructor.challenge.catalogue"
# Exercise A's default variant: the output is detached, so nothing is recorded for the loss.
_PROOF_A = (
    "model, optimizer = broken_setup(seed, device)\n"
    "with expect_error(RuntimeError) as caught:\n    broken_step(model, optimizer, inputs, targets)\n"
    "stage, evidence = Stage.LOSS_NOT_IN_GRAPH, [caught.exception, torch.is_grad_enabled()]\n"
)


def _sandboxed(tmp_path, source: str):
    answer = answer_source(source, 1)
    cells = proof_cells({("A", 1): answer}, None, tmp_path)
    done = _in_sandbox(part_sandbox(Sandbox("bwrap"), 1), "\n".join(c.source for c in cells), tmp_path)
    assert done.returncode == 0, done.stderr[-1500:]
    return judge_part(tmp_path, "A", 1, answer, None)


@pytest.mark.parametrize(
    ("attack", "flag"),
    [
        (f"exec(torch.sys.modules[{_CATALOGUE!r}].BUGS['A']._proof)\n", "reaches torch.sys"),
        (
            f"proof = __builtins__['__import__']({_CATALOGUE!r}, fromlist=['BUGS']).BUGS['A']._proof\n"
            "exec(proof)\n",
            "reaches __builtins__",
        ),
        (
            "import sys\nexec(sys.modules['__main__']._proofrun.__doc__ or '')\n"
            "stage, evidence = Stage.LOSS_NOT_IN_GRAPH, 1.0\n",
            "imports sys",
        ),
    ],
    ids=["torch.sys.modules", "__builtins__", "the harness"],
)
def test_an_attack_the_screen_flags_runs_in_the_sandbox_and_earns_nothing(bwrap, tmp_path, attack, flag):  # noqa: F811
    judged = _sandboxed(tmp_path, attack)
    assert judged.verdict.status != "passed", judged.verdict.message
    assert any(f.startswith("warning: ") and flag in f for f in judged.flags), judged.flags


def test_an_honest_proof_the_screen_flags_passes_flagged(bwrap, tmp_path):  # noqa: F811
    judged = _sandboxed(tmp_path, "import sys\nprint(sys.version_info >= (3, 9))\n" + _PROOF_A)
    assert judged.verdict.status == "passed", judged.verdict.message
    assert any(f.startswith("warning: ") and "imports sys" in f for f in judged.flags), judged.flags
