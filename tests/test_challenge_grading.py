"""The grader end to end, and exercises/ failing under execution exactly at their check cells.

Kernel starts are the expensive part on a 2-core machine, so every kernel run here is shared: one
short `grade` call for the timeout and the crash, and one `check` (both in the background, since they
mostly wait). The class of graded submissions is in tests/test_grade_class.py (one `grade` run).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograd_course.cli import main
from autograd_course.course import course_root
from autograd_instructor.challenge.notebooks import META_KEY, challenge_cells

pytestmark = pytest.mark.slow

SOL = course_root() / "solutions"
EXE = course_root() / "exercises"


def _read(folder: Path, ex_id: str) -> nbformat.NotebookNode:
    return nbformat.read(next(folder.glob(f"{ex_id}_*.ipynb")), as_version=4)


def _cell(nb, part: int, role: str) -> int:
    return next(i for i, m in challenge_cells(nb) if m["part"] == part and m["role"] == role)


def _bad_submissions(root: Path) -> None:
    # the grader runs only answer cells: each misbehaves in part 1's
    slow = _read(EXE, "M1")  # sleeps, so the wait for its timeout costs no CPU
    i = _cell(slow, 1, "answer")
    slow.cells[i].source = "import time\ntime.sleep(3600)\n" + slow.cells[i].source
    nbformat.write(slow, root / "slow.ipynb")
    crash = _read(EXE, "M3")
    i = _cell(crash, 1, "answer")
    crash.cells[i].source = "import os\nos._exit(1)\n" + crash.cells[i].source
    nbformat.write(crash, root / "crash.ipynb")


@pytest.fixture(scope="module")
def bad_run(tmp_path_factory):
    """Start, in the background, a short-timeout grade run: a notebook that never ends, one that crashes."""
    subs, out = tmp_path_factory.mktemp("bad"), tmp_path_factory.mktemp("bad-results")
    _bad_submissions(subs)
    # 30 s per part: the sleeping part reaches it while the other parts, which start a kernel and
    # run part of an exercise, end in a few seconds
    cmd = [sys.executable, "-m", "autograd_course", "grade", str(subs), "--out", str(out), "--timeout", "30"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    yield proc, out
    if proc.poll() is None:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def check_run(tmp_path_factory):
    """Start, in the background, `autograd-course check` on a fresh workspace's exercise B."""
    ws = tmp_path_factory.mktemp("workspace")
    assert main(["start", str(ws)]) == 0
    notebook = next(ws.glob("B_*.ipynb"))
    cmd = [sys.executable, "-m", "autograd_course", "check", str(notebook)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    yield proc, ws
    if proc.poll() is None:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def graded_bad(bad_run, check_run):
    """The records of the background run (the check is started first, so it runs while this one waits)."""
    proc, out = bad_run
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 3, err.decode()[-2000:]  # 3: some submissions could not be graded
    return json.loads((out / "results.json").read_text())


def _by(records, submission):
    return {r["part"]: r for r in records if r["submission"] == submission}


def test_a_part_that_never_ends_times_out_alone(graded_bad):
    """Part 1's answer sleeps: part 1 is the timeout, part 2 (untouched) is judged on its own."""
    got = _by(graded_bad, "slow.ipynb")
    assert got[1]["status"] == "timeout" and got[2]["status"] == "not_attempted"
    assert {c["status"] for c in got[1]["trail"]["checks"]} == {"not_run"}  # never "failed"


def test_a_killed_kernel_is_that_parts_error_and_the_batch_goes_on(graded_bad):
    got = _by(graded_bad, "crash.ipynb")
    assert got[1]["status"] == "error" and "kernel died" in got[1]["message"]
    assert got[2]["status"] == "not_attempted"


def test_solutions_and_exercises_tag_the_same_cells():
    solutions = sorted(SOL.glob("*.ipynb"))
    assert solutions, f"no solution notebooks in {SOL}"
    for sol in solutions:
        a = [m for _, m in challenge_cells(nbformat.read(sol, as_version=4))]
        b = [m for _, m in challenge_cells(nbformat.read(EXE / sol.name, as_version=4))]
        assert a, f"{sol.name} has no cell tagged {META_KEY!r}"
        assert a == b, sol.name
        exercise = sol.name.split("_")[0]
        assert {m["exercise"] for m in a} == {exercise}, sol.name
        # every part has its task, answer and check cell, in that order
        roles = [(m["part"], m["role"]) for m in a]
        parts = sorted({part for part, _ in roles})
        assert roles == [(p, r) for p in parts for r in ("task", "answer", "check")], sol.name


def test_check_grades_a_fresh_exercise_as_not_attempted_and_records_progress(check_run, capsys):
    proc, ws = check_run
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 1, err.decode()[-2000:]
    table = out.decode()
    assert table.splitlines()[0].split() == ["notebook", "exercise", "part", "outcome", "message"]
    assert table.count("not_attempted") == 2
    assert main(["progress", "--dir", str(ws)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "to do: part 1: not_attempted, part 2: not_attempted" in next(
        x for x in lines if x.split()[:1] == ["B"]
    )
    # lessons come first: a fresh workspace resumes at lesson 00
    assert lines[-1].startswith("Next: ") and "00_mental_model.ipynb" in lines[-1]
