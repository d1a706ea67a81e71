"""A held-out class graded in one run: folders, zips, a roster, broken, hostile and missing learners.

One `grade` run (module-scoped, --jobs 2, sandbox auto) is shared by every assertion; kernels are
the expensive part, so hostile submissions are stub exercises with one hostile cell in front.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograd_course.cli import main
from autograd_course.course import course_root
from autograd_course.execution.sandbox import bwrap_problem

pytestmark = pytest.mark.slow

SOL, EXE = course_root() / "solutions", course_root() / "exercises"


def _nb(folder: Path, ex_id: str) -> nbformat.NotebookNode:
    return nbformat.read(next(folder.glob(f"{ex_id}_*.ipynb")), as_version=4)


def _hostile(code: str) -> str:
    """A hostile cell, then one tagged answer cell: the least a kernel must run to be graded."""
    answer = nbformat.v4.new_code_cell("stage = evidence = None")
    answer.metadata["autograd_course"] = {"exercise": "M1", "part": 1, "role": "answer"}
    return nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code), answer]))


def _tree(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in folder.rglob("*")
        if p.is_file()
    }


def _class(root: Path, outside: Path) -> Path:
    subs = root / "submissions"
    (subs / "alice").mkdir(parents=True)
    nbformat.write(_nb(SOL, "A"), subs / "alice" / "A.ipynb")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("work/B_frozen_layer.ipynb", nbformat.writes(_nb(SOL, "B")))
    (subs / "bob.zip").write_bytes(buf.getvalue())
    broken = _nb(EXE, "A")
    broken.cells[3].source = "x = (\n"
    broken.cells[3].cell_type = "code"
    broken.cells[3].outputs, broken.cells[3].execution_count = [], None
    nbformat.write(broken, subs / "carl.ipynb")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("../../escaped.ipynb", "{}")
    (subs / "dina.zip").write_bytes(buf.getvalue())
    (subs / "erin.ipynb").write_text("")
    alice = subs / "alice" / "A.ipynb"
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


def test_broken_notebooks_are_errors_naming_file_cell_and_line(graded):
    (carl,) = _of(graded, "carl")
    assert carl["status"] == "error" and "syntax error in cell 4, line 1" in carl["message"]
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


@pytest.mark.skipif(bool(bwrap_problem()), reason="bubblewrap is not usable here")
@pytest.mark.parametrize(
    ("student", "words"),
    [
        ("h_net", "network"),
        ("h_peek", "outside its own folder"),
        ("h_solutions", "outside its own folder"),
        ("h_write", "outside its own folder"),
        ("h_forkbomb", "process limit|kernel died"),
        ("h_alloc", "memory"),
    ],
)
def test_hostile_submissions_are_contained_and_graded_error(graded, student, words):
    got = _of(graded, student)
    assert len(got) == 1 and got[0]["status"] == "error", got
    assert re.search(words, got[0]["message"]), got[0]["message"]
    if "kernel died" not in got[0]["message"]:  # a fork bomb may take the kernel down with it
        assert "cell 1" in got[0]["message"]


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
