"""The audit trail: per part, what the grader ran, what the answer printed and returned and each check,
in results.json, on the instructor's page per learner and in executed/: a 0 explained without a rerun."""

from __future__ import annotations

import json

import nbformat
import pytest
from solved import solved_for

from autograd_instructor.challenge.notebooks import challenge_cells
from autograd_instructor.grading.grade import Record, Submission, grade_folder
from autograd_instructor.grading.results import write_results
from autograd_instructor.grading.trail import TRAIL_MIME

TRAIL = {
    "ran": ["run 1: the answer as a proof on bug A, seed 3344"],
    "printed": "grad norm 0.000\n",
    "returned": "run 1: stage GRADIENTS; evidence: a list of 3",
    "checks": [
        {"name": "run 1: stage and evidence", "status": "failed", "measured": "wrong stage", "expected": "x"},
        {"name": "run 2: stage and evidence", "status": "not_run", "measured": "", "expected": ""},
    ],
}


def _records() -> list[Record]:
    part1 = Record("ann/A.ipynb", "A", 1, "failed", "the stage is not the one", "ann", trail=TRAIL)
    part2 = Record("ann/A.ipynb", "A", 2, "not_attempted", "the answer cell is empty", "ann")
    part2.trail = {"ran": ["run 1: the fixed functions in your code, trained"]}  # the rest missing
    return [part1, part2, Record("bo", "-", None, "missing", "nothing submitted", "bo")]


def test_the_audit_page_shows_every_key_of_the_trail_and_tolerates_missing_ones(tmp_path):
    write_results(_records(), tmp_path)
    page = (tmp_path / "audit" / "ann.html").read_text()
    for text in (
        "What the grader ran",
        "seed 3344",
        "What the answer printed",
        "grad norm 0.000",
        "What it returned",
        "stage GRADIENTS",
        "wrong stage",
        "not run",
        "run 2: stage and evidence",
    ):
        assert text in page, text
    assert page.count("<table>") == 1  # part 2's trail has no checks: no empty table
    assert '<meta name="viewport"' in page and "overflow-wrap:anywhere" in page
    index = (tmp_path / "audit" / "index.html").read_text()
    assert 'href="ann.html"' in index and 'href="bo.html"' in index
    saved = {
        (r["exercise"], r["part"]): r["trail"] for r in json.loads((tmp_path / "results.json").read_text())
    }
    assert saved[("A", 1)] == TRAIL and saved[("-", None)] == {}


def _wrong_b(path):
    """B with a part-1 answer that prints then raises, and a part-2 fix that never steps."""
    nb = solved_for("ann", "B")
    for i, m in challenge_cells(nb):
        if m["role"] == "answer" and m["part"] == 1:
            nb.cells[i].source = "print('looking at the gradients')\nstage = Stage.NO_SUCH_STAGE\n"
        elif m["role"] == "answer":
            nb.cells[i].source = (
                "def fixed_step(model, optimizer, inputs, targets):\n"
                "    return compute_loss(model, inputs, targets)\n"
            )
    nbformat.write(nb, path)


@pytest.mark.slow
def test_a_graded_part_keeps_what_ran_printed_returned_and_each_check(tmp_path):
    (tmp_path / "ann").mkdir()
    _wrong_b(tmp_path / "ann" / "B.ipynb")
    executed = tmp_path / "executed"
    sub = Submission("ann", "ann/B.ipynb", tmp_path / "ann" / "B.ipynb", learner="ann")
    records = {r.part: r for r in grade_folder([sub], timeout=300, progress=False, executed_dir=executed)}
    part1, part2 = records[1].trail, records[2].trail
    assert len(part1["ran"]) == 2 and "seed" in part1["ran"][0] and "another code shape" in part1["ran"][1]
    assert part1["printed"] == "looking at the gradients\n" * 2  # once per hidden run
    assert "raised AttributeError on line 2" in part1["returned"]
    assert [c["status"] for c in part1["checks"]] == ["not_run", "not_run"]  # it never set its answer
    assert records[2].status == "failed" and "never changed" in part2["returned"]
    statuses = {c["name"]: c["status"] for c in part2["checks"]}
    assert statuses["params_move"] == "failed" and set(statuses) == {
        "true_loss",
        "no_carryover",
        "params_move",
        "loss_falls",
    }
    measured = next(c["measured"] for c in part2["checks"] if c["name"] == "params_move")
    assert "never changed" in measured
    nb = nbformat.read(executed / "ann" / "B.ipynb", as_version=4)
    outputs = [o for c in nb.cells for o in c.get("outputs", [])]
    trails = [o.data[TRAIL_MIME] for o in outputs if o.output_type == "display_data"]
    assert trails[0]["printed"] == "looking at the gradients\n" * 2  # what part 1's runs printed
    assert [t["status"] for t in trails] == [records[1].status, "failed"]
