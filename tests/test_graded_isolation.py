"""Both parts' runs happen where the course cannot be reached: the sandbox shows the toolkit and torch,
never the course package (no catalogue, reference, proof, draw or grader to import), and each part's
harness arrives as source. Plain processes in bubblewrap, no kernel: the same mounts a grading kernel gets."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from autograd_course.execution.sandbox import Sandbox, bwrap_problem, course_import_path, release_cgroup
from autograd_instructor.grading.fixcells import fix_cells
from autograd_instructor.grading.grade import part_sandbox
from autograd_instructor.grading.judging import judge_part
from autograd_instructor.grading.proofcells import proof_cells


@pytest.fixture
def bwrap() -> None:
    """Skip without a usable bubblewrap, unless AUTOGRAD_COURSE_REQUIRE_SANDBOX=1 (CI): then fail."""
    problem = bwrap_problem()
    if problem and os.environ.get("AUTOGRAD_COURSE_REQUIRE_SANDBOX") == "1":
        pytest.fail(f"bubblewrap is required here (AUTOGRAD_COURSE_REQUIRE_SANDBOX=1) but: {problem}")
    if problem:
        pytest.skip(f"bubblewrap is not usable here: {problem}")


def _in_sandbox(box: Sandbox, code: str, scratch) -> subprocess.CompletedProcess:
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": course_import_path(), "HOME": str(scratch)}
    cmd = box.wrap([sys.executable, "-c", code], scratch, scratch)
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    finally:
        release_cgroup(scratch)


def test_neither_part_runs_where_the_course_can_be_imported(bwrap, tmp_path):
    probe = (
        "import helpers, torch\n"
        "try:\n    import autograd_instructor.challenge.catalogue\nexcept ImportError as exc:\n"
        "    print('refused', type(exc).__name__)\nelse:\n    print('imported')\n"
    )
    part1 = _in_sandbox(part_sandbox(Sandbox("bwrap"), 1), probe, tmp_path)
    part2 = _in_sandbox(part_sandbox(Sandbox("bwrap"), 2), probe, tmp_path)
    assert "refused" in part1.stdout, part1.stdout + part1.stderr[-800:]
    assert "refused" in part2.stdout, part2.stdout + part2.stderr[-800:]


def test_part_two_cells_need_nothing_but_the_toolkit(bwrap, tmp_path):
    """The harness and a hidden run, as the grader sends them, run and write their numbers there."""
    from autograd_instructor.challenge.answer_source import answer_source

    fix = "def fixed_compute_loss(model, inputs, targets):\n    return F.mse_loss(model(inputs), targets)\n"
    cells = fix_cells({("A", 2): answer_source(fix, 2)}, None, tmp_path)
    # what an answer could reach through torch.sys.modules: nothing of the course is loaded
    probe = "\nimport torch\nprint('course:', sorted(m for m in torch.sys.modules if 'autograd_course' in m))"
    done = _in_sandbox(
        part_sandbox(Sandbox("bwrap"), 2), "\n".join(c.source for c in cells) + probe, tmp_path
    )
    assert done.returncode == 0, done.stderr[-1500:]
    assert "course: []" in done.stdout
    assert sorted(p.name for p in tmp_path.glob("*.pt")) == ["A-part2-hidden0.pt", "A-part2-hidden1.pt"]


def test_part_one_cells_need_nothing_but_the_toolkit(bwrap, tmp_path):
    """Part 1's harness and hidden runs, as the grader sends them, run there without the course, the
    doctor is gone from the toolkit, and the grader passes an honest proof from what they wrote."""
    from autograd_instructor.challenge.answer_source import answer_source

    proof = (
        "model, optimizer = broken_setup(seed, device)\n"
        "with expect_error(RuntimeError) as caught:\n    broken_step(model, optimizer, inputs, targets)\n"
        "try:\n    diagnose(lambda: None, model, optimizer)\n"
        "except RuntimeError as exc:\n    print('doctor:', exc)\n"
        "stage, evidence = Stage.LOSS_NOT_IN_GRAPH, [caught.exception, torch.is_grad_enabled()]\n"
    )
    answer = answer_source(proof, 1)
    cells = proof_cells({("A", 1): answer}, None, tmp_path)
    probe = "\nimport torch\nprint('course:', sorted(m for m in torch.sys.modules if 'autograd_course' in m))"
    done = _in_sandbox(
        part_sandbox(Sandbox("bwrap"), 1), "\n".join(c.source for c in cells) + probe, tmp_path
    )
    assert done.returncode == 0, done.stderr[-1500:]
    assert "course: []" in done.stdout
    assert sorted(p.name for p in tmp_path.glob("*.json")) == ["A-part1-hidden0.json", "A-part1-hidden1.json"]
    judged = judge_part(tmp_path, "A", 1, answer, None)
    assert judged.verdict.status == "passed", judged.verdict.message
    assert "no doctor" in judged.trail["printed"]


_WATCHED_READS = """
import json, traceback
import torch
import helpers
from autograd_course.harness_core import reached, watched
from autograd_course.proving import proofrun
with watched():
    try:
        helpers.assert_finite(torch.tensor(float("nan")), "x")
    except Exception:
        traceback.format_exc()  # reads the toolkit's source for the frames (linecache)
honest = reached()
with watched():
    try:
        open(proofrun.__file__.replace("proving/proofrun.py", "grading/grade.py")).read()
    except OSError:
        pass
print(json.dumps([honest, reached()]))
"""


def test_the_watch_lets_a_traceback_read_the_toolkit_and_still_reports_reading_the_grader(tmp_path):
    """The course installed editable (the README's setup) and the work folder outside /tmp: a traceback
    through the toolkit is no reach for files, while opening the grader's source still is."""
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"TMPDIR": str(work)}
    done = subprocess.run(
        [sys.executable, "-c", _WATCHED_READS], cwd=work, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    honest, attack = json.loads(done.stdout.splitlines()[-1])
    assert honest == []
    assert len(attack) == 1 and attack[0].startswith("opened ") and attack[0].endswith("grade.py")
