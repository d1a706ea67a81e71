"""A held-out class graded in one run: folders, zips, a roster, broken, hostile and missing learners.

One `grade` run (module-scoped, --jobs 2, sandbox auto) is shared by every assertion; kernels are
the expensive part, so hostile submissions are stub exercises with one hostile cell in front.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import io
import json
import os
import re
import zipfile
from pathlib import Path
from unittest import mock

import nbformat
import pytest
from nbclient import NotebookClient
from solved import committed_solution, solved_for

from autograd_course.cli import main
from autograd_course.course import course_root
from autograd_course.execution.sandbox import bwrap_problem
from autograd_course.protocol import LEARNER_ENV
from autograd_instructor.challenge import variant_for
from autograd_instructor.challenge.catalogue import render
from autograd_instructor.challenge.notebooks import challenge_cells
from autograd_instructor.challenge.parts import function_source
from helpers import Stage

pytestmark = pytest.mark.slow

SOL, EXE = course_root() / "solutions", course_root() / "exercises"


def _nb(folder: Path, ex_id: str) -> nbformat.NotebookNode:
    return nbformat.read(next(folder.glob(f"{ex_id}_*.ipynb")), as_version=4)


def _hostile(code: str) -> str:
    """One tagged answer cell that opens with hostile code: the grader runs only answer cells."""
    answer = nbformat.v4.new_code_cell(code + "\nstage = evidence = None")
    answer.metadata["autograd_course"] = {"exercise": "M1", "part": 1, "role": "answer"}
    return nbformat.writes(nbformat.v4.new_notebook(cells=[answer]))


def _tree(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in folder.rglob("*")
        if p.is_file()
    }


def _cell(nb, part: int, role: str) -> int:
    return next(i for i, m in challenge_cells(nb) if m["part"] == part and m["role"] == role)


def _graded_by_metadata(root: Path) -> None:
    """Submissions that test how answers are found and judged: moved cells, monkeypatching, non-notebooks."""
    carol = solved_for(
        "carol", "C"
    )  # cells reordered, duplicated and deleted: found by metadata, not position
    del carol.cells[_cell(carol, 1, "answer")]
    answer = carol.cells.pop(_cell(carol, 2, "answer"))
    duplicate = copy.deepcopy(answer)
    duplicate["id"] = "duplicated-answer"
    first_code = next(i for i, c in enumerate(carol.cells) if c.cell_type == "code")
    carol.cells[first_code + 2 : first_code + 2] = [answer, duplicate]  # before the part 1 heading
    carol.cells.insert(0, carol.cells.pop(_cell(carol, 2, "check")))  # the check runs first, and fails
    nbformat.write(carol, root / "carol.ipynb")

    dave = solved_for("dave", "D")  # a broken fix plus monkeypatching that fools the in-kernel check
    too_late = function_source(render(variant_for("dave", "D")), "broken_step")
    too_late = too_late.replace("def broken_step(", "def fixed_step(").replace(
        "    loss.backward()\n", "    loss.backward()\n    optimizer.zero_grad()  # zeroed, but too late\n"
    )
    assert "too late" in too_late, too_late  # dave's variant calls loss.backward() in broken_step
    i = _cell(dave, 2, "answer")
    dave.cells[i].source = (
        "import autograd_instructor.challenge.exercise as _ex\n"
        "import autograd_course.fixing.fixcheck as _fc\n"
        "torch.allclose = lambda *a, **k: True\n"
        "torch.equal = lambda *a, **k: True\n"
        "_fc.judge_fix = _ex.judge_fix = lambda *a, **k: (True, 'looks fine to me')\n"
        "open('written_by_learner.txt', 'w').write('cwd is not the submissions folder')\n"
        f"{too_late}\n"
    )
    nbformat.write(dave, root / "dave.ipynb")

    ray = solved_for("ray", "E")  # an answer cell that raises: an error in the learner's code, named
    raises = "x = 1\nraise RuntimeError('element 0 of tensors does not require grad')"
    ray.cells[_cell(ray, 1, "answer")].source = raises
    nbformat.write(ray, root / "ray.ipynb")

    (root / "broken.ipynb").write_text('{"cells": [')
    (root / "notes.txt").write_text("not a notebook")
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")]), root / "plain.ipynb")


def _tries_every_stage(root: Path) -> None:
    """quinn's notebook as quinn left it: every Stage tried against the check, then the real answer."""
    quinn = solved_for("quinn", "A")
    brute = nbformat.v4.new_code_cell("for stage in Stage:\n    ex.part1.check()")
    quinn.cells.insert(_cell(quinn, 1, "answer"), brute)
    with mock.patch.dict(os.environ, {LEARNER_ENV: "quinn"}):
        # killed at the end, as the course's own runs do: a graceful stop waits about 2 s
        kill = {"shutdown_kernel": "immediate"}
        NotebookClient(quinn, timeout=300, resources={"metadata": {"path": str(root)}}, **kill).execute()
    nbformat.write(quinn, root / "quinn.ipynb")


def _class(root: Path, outside: Path) -> Path:
    subs = root / "submissions"
    (subs / "alice" / "week1").mkdir(parents=True)  # any name, nested: the cells' metadata say what it is
    nbformat.write(solved_for("alice", "A"), subs / "alice" / "week1" / "anything.ipynb")
    # The committed solution pasted into another learner's notebook: it repairs someone else's code.
    nbformat.write(committed_solution("A"), subs / "mallory.ipynb")
    _graded_by_metadata(subs)
    _tries_every_stage(subs)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("work/B_frozen_layer.ipynb", nbformat.writes(solved_for("bob", "B")))
    (subs / "bob.zip").write_bytes(buf.getvalue())
    broken = _nb(EXE, "A")
    broken.cells[3].source = "x = (\n"  # a scratch cell that does not parse: never graded
    broken.cells[3].cell_type = "code"
    broken.cells[3].outputs, broken.cells[3].execution_count = [], None
    broken.cells[_cell(broken, 1, "answer")].source = "stage = (\n"  # part 1's answer does not parse
    nbformat.write(broken, subs / "carl.ipynb")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("../../escaped.ipynb", "{}")
    (subs / "dina.zip").write_bytes(buf.getvalue())
    (subs / "erin.ipynb").write_text("")
    alice = subs / "alice" / "week1" / "anything.ipynb"
    hostile = {
        "net": "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=5)",
        "peek": f"open({str(alice)!r}).read()",
        "solutions": f"open({str(next(SOL.glob('A_*.ipynb')))!r}).read()",
        "write": f"open({str(outside / 'pwned.txt')!r}, 'w').write('x')",
        "forkbomb": "import os\nwhile True:\n    os.fork()",
        "alloc": "import torch\nx = torch.ones(2 ** 31)",
    }
    for name, code in hostile.items():
        (subs / f"h_{name}.ipynb").write_text(_hostile(code))
    roster = root / "roster.csv"
    rows = [
        ("alice", "Alice A"),
        ("bob", "Bob B"),
        ("carl", "Carl C"),
        ("dina", "Dina D"),
        ("erin", "Erin E"),
    ]
    rows += [(n, n.title()) for n in ("carol", "dave", "ray", "mallory", "quinn", "broken", "notes", "plain")]
    rows += [(f"h_{n}", n) for n in hostile] + [("zoe", "Zoe Z")]
    roster.write_text("id,name,files\n" + "".join(f"{i},{n},\n" for i, n in rows))
    return roster


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("class")
    outside = tmp_path_factory.mktemp("outside")
    roster = _class(root, outside)
    subs, out = root / "submissions", root / "results"
    before = _tree(subs)
    code = main(
        ["grade", str(subs), "--out", str(out), "--roster", str(roster), "--jobs", "2", "--timeout", "200"]
    )
    records = json.loads((out / "results.json").read_text())
    return {"code": code, "records": records, "out": out, "subs": subs, "before": before, "outside": outside}


def _of(graded, student):
    return [r for r in graded["records"] if r["student"] == student]


def test_solutions_in_a_folder_and_a_zip_earn_full_points(graded):
    for student in ("alice", "bob"):
        got = _of(graded, student)
        assert {r["status"] for r in got} == {"passed"} and len(got) == 2, got
        assert sum(r["points"] for r in got) == sum(r["max_points"] for r in got) == 6  # part 1: 2, part 2: 4
        checks = ("true_loss", "no_carryover", "params_move", "loss_falls")
        assert got[1]["checks"] == [[c, True] for c in checks]


def test_the_committed_solution_in_another_learners_notebook_is_listed_for_the_instructor(graded):
    """The default fix removes the detach, which is mallory's fix too: behaviour passes it, and the
    copy of the public answer is listed under "Flagged for the instructor"."""
    assert variant_for("mallory", "A") != variant_for(None, "A")
    got = _by(graded["records"], "mallory.ipynb")
    assert got[2]["status"] == "passed", got[2]
    copied = "the same answer as the repository's default solution (another variant)"
    assert copied in got[1]["flags"] and copied in got[2]["flags"]
    assert copied in (graded["out"] / "summary.md").read_text()


def test_attempts_per_part_are_counted_and_many_are_flagged(graded):
    tries = len(Stage) + 1  # the loop, then the notebook's own check cell
    got = _by(graded["records"], "quinn.ipynb")
    assert (got[1]["status"], got[1]["attempts"], got[2]["attempts"]) == ("passed", tries, 1)
    assert {r["attempts"] for r in _of(graded, "alice")} == {1}  # the solution as committed: run once
    summary = (graded["out"] / "summary.md").read_text()
    assert f"- `quinn` A.1: {tries} checks" in summary and "`quinn` A.2" not in summary
    feedback = (graded["out"] / "feedback" / "quinn.md").read_text()
    assert f"You ran this part's check {tries} times before you submitted." in feedback
    rows = list(csv.DictReader((graded["out"] / "results.csv").open()))
    assert {r["attempts"] for r in rows if r["student"] == "quinn"} == {str(tries), "1"}


def test_broken_notebooks_are_errors_naming_file_cell_and_line(graded):
    carl = {r["part"]: r for r in _of(graded, "carl")}
    answer = _cell(_nb(EXE, "A"), 1, "answer") + 1
    assert carl[1]["status"] == "error"
    assert f"syntax error in the answer cell (cell {answer}, line 1)" in carl[1]["message"]
    assert carl[2]["status"] == "not_attempted", "the scratch cell and part 1's cell cost part 2 nothing"
    (erin,) = _of(graded, "erin")
    assert erin["status"] == "error" and "empty file" in erin["message"]
    (dina,) = _of(graded, "dina")
    assert dina["status"] == "error" and "outside the archive" in dina["message"]


def test_a_roster_learner_without_a_submission_is_missing_with_zero(graded):
    (zoe,) = _of(graded, "zoe")
    assert zoe["status"] == "missing" and zoe["points"] == 0
    rows = {r["id"]: r for r in csv.DictReader((graded["out"] / "grades.csv").open())}
    assert rows["zoe"]["status"] == "missing" and rows["zoe"]["total"] == "0"
    assert rows["alice"]["name"] == "Alice A" and rows["alice"]["A"] == "6" and rows["alice"]["total"] == "6"
    assert rows["alice"]["max"] == "48"


def test_exit_status_says_some_submissions_could_not_be_graded(graded):
    assert graded["code"] == 3


def _require_sandbox() -> None:
    """Skip without a usable bubblewrap, unless AUTOGRAD_COURSE_REQUIRE_SANDBOX=1 (CI): then fail."""
    problem = bwrap_problem()
    if problem and os.environ.get("AUTOGRAD_COURSE_REQUIRE_SANDBOX") == "1":
        pytest.fail(f"bubblewrap is required here (AUTOGRAD_COURSE_REQUIRE_SANDBOX=1) but: {problem}")
    if problem:
        pytest.skip(f"bubblewrap is not usable here: {problem}")


@pytest.mark.parametrize(
    ("student", "words"),
    [
        ("h_net", "network"),
        ("h_peek", "opened .*alice|outside its own folder"),
        ("h_solutions", "opened .*solutions|outside its own folder"),
        ("h_write", "opened .*pwned|outside its own folder"),
        ("h_forkbomb", "process|kernel died"),
        ("h_alloc", "memory"),
    ],
)
def test_hostile_submissions_are_contained_and_graded_error(graded, student, words):
    _require_sandbox()
    got = _of(graded, student)
    assert len(got) == 1 and got[0]["status"] == "error", got
    assert re.search(words, got[0]["message"]), got[0]["message"]
    if "kernel died" not in got[0]["message"]:  # a fork bomb may take the kernel down with it
        assert "answer cell" in got[0]["message"] and got[0]["flags"]  # listed for the instructor


def test_nothing_escapes_and_the_submissions_are_unchanged(graded):
    assert not (graded["outside"] / "pwned.txt").exists()
    assert _tree(graded["subs"]) == graded["before"]
    assert not (graded["subs"].parent / "escaped.ipynb").exists()


def test_feedback_per_student_without_solutions(graded):
    text = (graded["out"] / "feedback" / "alice.md").read_text()
    assert "Total: **6 / 48**" in text and "every parameter moves" in text
    assert "BEGIN SOLUTION" not in text and "def " not in text
    assert (graded["out"] / "feedback" / "alice.html").read_text().startswith("<!doctype html>")
    assert "Nothing was submitted" in (graded["out"] / "feedback" / "zoe.md").read_text()


def _by(records, submission):
    return {r["part"]: r for r in records if r["submission"] == submission}


def test_solution_passes_both_parts_in_a_nested_folder(graded):
    got = _by(graded["records"], "alice/week1/anything.ipynb")
    assert {p: r["status"] for p, r in got.items()} == {1: "passed", 2: "passed"}
    assert all(r["exercise"] == "A" for r in got.values())
    # the record shows what was judged: the hidden runs, what they printed and returned, each check
    for part, trail in ((p, r["trail"]) for p, r in got.items()):
        assert len(trail["ran"]) == 2 and trail["returned"], (part, trail)
        assert trail["checks"] and {c["status"] for c in trail["checks"]} == {"passed"}, (part, trail)
    assert "grad_fn" in got[1]["trail"]["printed"]  # the proof prints its debug_tensor report


def test_reordered_duplicated_and_deleted_cells_are_found_by_metadata(graded):
    got = _by(graded["records"], "carol.ipynb")
    assert got[1]["status"] == "not_attempted" and "missing" in got[1]["message"]
    assert got[2]["status"] == "passed"


def test_monkeypatching_in_the_notebook_does_not_turn_a_failure_into_a_pass(graded):
    got = _by(graded["records"], "dave.ipynb")
    assert got[1]["status"] == "passed"
    # the answer imports the course's checks to patch them: part 2's kernel has no course to import
    assert got[2]["status"] == "error" and got[2]["points"] == 0
    assert got[2]["message"].startswith("your answer cell raised ModuleNotFoundError on line 1")
    assert any("imports autograd_course.fixing.fixcheck" in f for f in got[2]["flags"])
    executed = nbformat.read(graded["out"] / "executed" / "dave.ipynb", as_version=4)
    # what the grader ran: its own cells around the answers' source, never the learner's notebook
    assert "_proofrun" in executed.cells[0].source and not any("check()" in c.source for c in executed.cells)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("broken.ipynb", "broken JSON"),
        ("erin.ipynb", "empty file"),
        ("notes.txt", "broken JSON"),
        ("plain.ipynb", "no challenge cells"),
    ],
)
def test_non_notebooks_are_errors_with_a_reason(graded, name, words):
    (record,) = [r for r in graded["records"] if r["submission"] == name]
    assert record["status"] == "error" and words in record["message"]


def test_results_json_csv_and_summary(graded):
    out, records = graded["out"], graded["records"]
    assert {r["status"] for r in records} <= {
        "passed",
        "failed",
        "not_attempted",
        "error",
        "timeout",
        "missing",
    }
    csv_lines = (out / "results.csv").read_text().splitlines()
    assert csv_lines[0] == (
        "student,submission,exercise,part,status,points,max_points,checks,hints,solution_viewed,attempts,message,note,"
        "flags,mode,override"
    )
    assert len(csv_lines) == len(records) + 1
    summary = (out / "summary.md").read_text()
    assert (
        "| A | 1 | 3 | 0 | 0 | 1 | 0 | 0 |" in summary
    )  # alice, mallory, quinn passed; carl's does not parse
    assert "| C | 1 | 0 | 0 | 1 | 0 | 0 | 0 | 0% |" in summary  # carol's part 1 answer is gone


def test_feedback_never_contains_check_code(graded):
    for r in graded["records"]:  # a message may name the learner's own answer, `def fixed_step(...)`
        assert not re.search(r"def (?!fixed_setup|fixed_compute_loss|fixed_step)\w+\(", r["message"]), r
        assert "Traceback" not in r["message"]


def test_an_answer_that_raises_before_its_answer_is_an_error_naming_the_line(graded):
    got = _by(graded["records"], "ray.ipynb")
    assert got[1]["status"] == "error", got[1]
    assert got[1]["message"].startswith("your answer cell raised RuntimeError on line 2: element 0")
    assert got[2]["status"] == "passed"  # part 2 is judged on its own
