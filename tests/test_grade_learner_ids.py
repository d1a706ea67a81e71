"""Learner ids: AUTOGRAD_COURSE_LEARNER stamps like --seed; an unstamped notebook is resolved or listed.

No kernel runs here: the resolution reads the notebook's metadata and the broken code it printed.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from autograd_course.cli import main
from autograd_course.course import exercise_notebooks
from autograd_course.learner import stamp_learner
from autograd_course.protocol import LEARNER_ENV
from autograd_instructor.challenge.catalogue import render
from autograd_instructor.challenge.draw import variant_for
from autograd_instructor.grading.grade import Record
from autograd_instructor.grading.gradescope import gradescope_results
from autograd_instructor.grading.learner_ids import add_notes, resolve_learner
from autograd_instructor.grading.results import summary_markdown

EXERCISE = next(p for p in exercise_notebooks() if p.name.startswith("A_"))
# Three ids whose variants of exercise A differ from each other and from the default variant.
IDS = ("alice", "bob", "carol")


def test_the_ids_used_here_draw_different_variants():
    codes = [render(variant_for(i, "A")) for i in (*IDS, None)]
    assert len(set(codes)) == len(codes)


def test_start_with_the_environment_variable_records_and_stamps_like_seed(tmp_path, monkeypatch):
    monkeypatch.setenv(LEARNER_ENV, " alice@example.org ")
    assert main(["start", str(tmp_path / "env")]) == 0
    monkeypatch.delenv(LEARNER_ENV)
    assert main(["start", str(tmp_path / "seed"), "--seed", "alice@example.org"]) == 0
    for folder in ("env", "seed"):
        assert json.loads((tmp_path / folder / "course.json").read_text()) == {"learner": "alice@example.org"}
    for nb in exercise_notebooks():
        env, seed = (json.loads((tmp_path / f / nb.name).read_text()) for f in ("env", "seed"))
        assert env == seed and env["metadata"]["autograd_course"]["learner"] == "alice@example.org"


def _notebook(tmp_path: Path, printed_for: str | bool | None, stamp: str | None = None) -> Path:
    """Exercise A as a learner ran it: the setup cell printed the broken code of printed_for's variant
    (False: nothing printed, outputs cleared)."""
    nb = nbformat.read(EXERCISE, as_version=4)
    setup = next(c for c in nb.cells if c.cell_type == "code" and "print(ex.code())" in c.source)
    setup.outputs = []
    if printed_for is not False:
        text = render(variant_for(printed_for, "A")) + "\n"
        setup.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
    if stamp:
        stamp_learner(nb, stamp)
    path = tmp_path / f"A_{printed_for}_{stamp}.ipynb"
    nbformat.write(nb, path)
    return path


def test_the_printed_code_of_the_graded_id_needs_nothing_checked(tmp_path):
    found = resolve_learner(_notebook(tmp_path, "alice"), "alice", ["bob"], "roster id")
    assert (found.learner, found.note) == ("alice", "")


def test_the_printed_code_picks_the_learners_other_id(tmp_path):
    # A Canvas download graded by Canvas user id "bob" whose learner drew with their SIS id "alice"
    found = resolve_learner(_notebook(tmp_path, "alice"), "bob", ["alice"], "Canvas user id")
    assert found.learner == "alice" and "'alice''s variant" in found.note


@pytest.mark.parametrize(
    ("printed", "why"),
    [
        ("carol", "no variant of 'bob', 'alice'"),
        (None, "default variant"),
        (False, "no broken code printed"),
    ],
)
def test_an_unresolved_notebook_is_graded_by_its_id_and_noted(tmp_path, printed, why):
    found = resolve_learner(_notebook(tmp_path, printed), "bob", ["alice"], "Canvas user id")
    assert found.learner == "bob"
    assert why in found.note and "graded as 'bob' (Canvas user id)" in found.note


def test_a_stamped_notebook_is_left_to_its_stamp(tmp_path):
    found = resolve_learner(_notebook(tmp_path, "carol", stamp="carol"), "bob", [], "its folder")
    assert (found.learner, found.note) == ("bob", "")  # learner_for then grades it by the stamp


def test_notes_reach_summary_and_the_gradescope_staff_data():
    records = [
        Record("s/A.ipynb", "A", 1, "failed", "wrong stage", "s"),
        Record("t/A.ipynb", "A", 1, "passed", ""),
    ]
    add_notes(records, {"s/A.ipynb": "no learner id stamped and no broken code printed: graded as 's'"})
    assert records[0].note and not records[1].note
    summary = summary_markdown(records)
    assert "## Learner ids to check" in summary and "`s/A.ipynb`: no learner id stamped" in summary
    data = gradescope_results(records)
    assert data["extra_data"]["learner_ids_to_check"] == [f"s/A.ipynb: {records[0].note}"]
    assert data["tests"] and all("learner id" not in t["output"] for t in data["tests"])  # staff only
