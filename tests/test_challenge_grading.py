"""The grader end to end, and exercises/ failing under execution exactly at their check cells.

Kernel starts are the expensive part on a 2-core machine, so every kernel run here is shared: one
`grade` call over a folder of synthetic submissions (--jobs 2), one short call for the timeout and
the crash (in the background, since it mostly waits), and one kernel that runs every shipped
exercise notebook in turn.
"""

from __future__ import annotations

import copy
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograd_course.challenge.notebooks import META_KEY, challenge_cells
from autograd_course.cli import main
from autograd_course.course import course_root

pytestmark = pytest.mark.slow

SOL = course_root() / "solutions"
EXE = course_root() / "exercises"


def _read(folder: Path, ex_id: str) -> nbformat.NotebookNode:
    return nbformat.read(next(folder.glob(f"{ex_id}_*.ipynb")), as_version=4)


def _cell(nb, part: int, role: str) -> int:
    return next(i for i, m in challenge_cells(nb) if m["part"] == part and m["role"] == role)


def _tree(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in folder.rglob("*")
        if p.is_file()
    }


def _submissions(root: Path) -> None:
    (root / "alice" / "week1").mkdir(parents=True)
    nbformat.write(_read(SOL, "A"), root / "alice" / "week1" / "anything.ipynb")

    carol = _read(SOL, "C")  # cells reordered, duplicated and deleted: found by metadata, not position
    del carol.cells[_cell(carol, 1, "answer")]
    answer = carol.cells.pop(_cell(carol, 2, "answer"))
    duplicate = copy.deepcopy(answer)
    duplicate["id"] = "duplicated-answer"
    first_code = next(i for i, c in enumerate(carol.cells) if c.cell_type == "code")
    carol.cells[first_code + 2 : first_code + 2] = [answer, duplicate]  # before the part 1 heading
    carol.cells.insert(0, carol.cells.pop(_cell(carol, 2, "check")))  # the check runs first, and fails
    nbformat.write(carol, root / "carol.ipynb")

    dave = _read(SOL, "D")  # a broken fix plus monkeypatching that fools the in-kernel check
    i = _cell(dave, 2, "answer")
    dave.cells[i].source = (
        "import autograd_course.challenge.exercise as _ex\n"
        "import autograd_course.challenge.fixcheck as _fc\n"
        "torch.allclose = lambda *a, **k: True\n"
        "torch.equal = lambda *a, **k: True\n"
        "_fc.judge_fix = _ex.judge_fix = lambda *a, **k: (True, 'looks fine to me')\n"
        "open('written_by_learner.txt', 'w').write('cwd is not the submissions folder')\n"
        "fixed_setup, fixed_step = broken_setup, broken_step\n"
    )
    nbformat.write(dave, root / "dave.ipynb")

    (root / "broken.ipynb").write_text('{"cells": [')
    (root / "empty.ipynb").write_text("")
    (root / "notes.txt").write_text("not a notebook")
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")]), root / "plain.ipynb")


def _bad_submissions(root: Path) -> None:
    slow = _read(EXE, "M1")  # sleeps, so the wait for its timeout costs no CPU
    slow.cells.insert(_cell(slow, 1, "answer"), nbformat.v4.new_code_cell("import time\ntime.sleep(3600)"))
    nbformat.write(slow, root / "slow.ipynb")
    crash = _read(EXE, "M3")
    crash.cells.insert(1, nbformat.v4.new_code_cell("import os\nos._exit(1)"))
    nbformat.write(crash, root / "crash.ipynb")


@pytest.fixture(scope="module")
def bad_run(tmp_path_factory):
    """Start, in the background, a short-timeout grade run: a notebook that never ends, one that crashes."""
    subs, out = tmp_path_factory.mktemp("bad"), tmp_path_factory.mktemp("bad-results")
    _bad_submissions(subs)
    cmd = [sys.executable, "-m", "autograd_course", "grade", str(subs), "--out", str(out), "--timeout", "60"]
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
def graded(bad_run, check_run, tmp_path_factory):
    """One grade run over every synthetic submission (while bad_run waits for its timeout)."""
    subs = tmp_path_factory.mktemp("submissions")
    out = tmp_path_factory.mktemp("results")
    _submissions(subs)
    before = _tree(subs)
    code = main(["grade", str(subs), "--out", str(out), "--jobs", "2", "--timeout", "400", "--overwrite"])
    assert code == 3  # broken.ipynb, empty.ipynb, notes.txt and plain.ipynb could not be graded
    records = json.loads((out / "results.json").read_text())
    return {"records": records, "out": out, "subs": subs, "before": before}


@pytest.fixture(scope="module")
def graded_bad(bad_run):
    """The records of the background run."""
    proc, out = bad_run
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 3, err.decode()[-2000:]  # 3: some submissions could not be graded
    return json.loads((out / "results.json").read_text())


def _by(records, submission):
    return {r["part"]: r for r in records if r["submission"] == submission}


def test_solution_passes_both_parts_in_a_nested_folder(graded):
    got = _by(graded["records"], "alice/week1/anything.ipynb")
    assert {p: r["status"] for p, r in got.items()} == {1: "passed", 2: "passed"}
    assert all(r["exercise"] == "A" for r in got.values())


def test_reordered_duplicated_and_deleted_cells_are_found_by_metadata(graded):
    got = _by(graded["records"], "carol.ipynb")
    assert got[1]["status"] == "not_attempted" and "missing" in got[1]["message"]
    assert got[2]["status"] == "passed"


def test_monkeypatching_in_the_notebook_does_not_turn_a_failure_into_a_pass(graded):
    got = _by(graded["records"], "dave.ipynb")
    assert got[1]["status"] == "passed"
    assert got[2]["status"] == "failed" and "gradients carry over" in got[2]["message"]
    executed = nbformat.read(graded["out"] / "executed" / "dave.ipynb", as_version=4)
    check = executed.cells[_cell(executed, 2, "check")]
    # The in-kernel check cell is kept but not run: the grader's own judgement is the verdict.
    assert "check()" in check.source and check.outputs == []


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("broken.ipynb", "broken JSON"),
        ("empty.ipynb", "empty file"),
        ("notes.txt", "broken JSON"),
        ("plain.ipynb", "no challenge cells"),
    ],
)
def test_non_notebooks_are_errors_with_a_reason(graded, name, words):
    (record,) = [r for r in graded["records"] if r["submission"] == name]
    assert record["status"] == "error" and words in record["message"]


def test_nothing_is_written_inside_the_submissions_folder(graded):
    assert _tree(graded["subs"]) == graded["before"]


def test_results_json_csv_and_summary(graded):
    out, records = graded["out"], graded["records"]
    assert {r["status"] for r in records} <= {"passed", "failed", "not_attempted", "error", "timeout"}
    csv_lines = (out / "results.csv").read_text().splitlines()
    assert csv_lines[0] == (
        "student,submission,exercise,part,status,points,max_points,checks,hints,solution_viewed,message"
    )
    assert len(csv_lines) == len(records) + 1
    summary = (out / "summary.md").read_text()
    assert "| A | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 100% |" in summary  # alice passed
    assert "| C | 1 | 0 | 0 | 1 | 0 | 0 | 0 | 0% |" in summary  # carol's part 1 answer is gone


def test_feedback_never_contains_check_code(graded):
    for r in graded["records"]:
        assert "def " not in r["message"] and "Traceback" not in r["message"]


def test_a_notebook_that_never_ends_times_out(graded_bad):
    got = _by(graded_bad, "slow.ipynb")
    assert {r["status"] for r in got.values()} == {"timeout"} and set(got) == {1, 2}


def test_a_killed_kernel_is_an_error_and_the_batch_goes_on(graded_bad):
    got = _by(graded_bad, "crash.ipynb")
    assert {r["status"] for r in got.values()} == {"error"}
    assert "kernel died" in got[1]["message"]


def test_solutions_and_exercises_tag_the_same_cells():
    for sol in sorted(SOL.glob("*.ipynb")):
        a = [m for _, m in challenge_cells(nbformat.read(sol, as_version=4))]
        b = [m for _, m in challenge_cells(nbformat.read(EXE / sol.name, as_version=4))]
        assert a == b and all(META_KEY for _ in a)


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
        x for x in lines if x.split()[0] == "B"
    )
    assert lines[-1].startswith("Next: ") and lines[-1].endswith("A_detached_output.ipynb")
