"""Feedback a learner reads: what each failure means and what to do, on any screen. No kernel runs."""

from __future__ import annotations

from autograd_instructor.grading.feedback import CHECK_ADVICE, look_at
from autograd_instructor.grading.grade import Record
from autograd_instructor.grading.gradescope import gradescope_results
from autograd_instructor.grading.results import write_results
from autograd_instructor.grading.scoring import exercise_max

SYNTAX = "A_detached_output.ipynb: syntax error in cell 8, line 2: invalid syntax"


def _records() -> list[Record]:
    records = [
        Record("ann/A_detached_output.ipynb", "-", None, "error", SYNTAX, "ann"),
        Record("ann/B_frozen_layer.ipynb", "B", 1, "failed", "the stage is not the one", "ann"),
        Record("ann/B_frozen_layer.ipynb", "B", 2, "failed", "some parameter never moved", "ann"),
    ]
    records[2].checks = [["params_move", False], ["no_carryover", False]]
    return records


def test_a_syntax_error_is_a_submitted_exercise_with_advice_to_fix_the_line(tmp_path):
    write_results(_records(), tmp_path)
    text = (tmp_path / "feedback" / "ann.md").read_text()
    assert "Not submitted (0 points): exercises C, D, E, M1, M2, M3." in text  # A was submitted
    assert "Fix the syntax error the message names (cell and line)" in text
    assert "download your notebook again" not in text


def test_a_failed_check_says_what_it_measured_and_failed_parts_get_their_own_advice(tmp_path):
    write_results(_records(), tmp_path)
    text = (tmp_path / "feedback" / "ann.md").read_text()
    assert "gradients carry over from one step to the next" not in text  # not a cause it cannot know
    assert "✘ not shown: each step's gradients are that step's own" in text
    assert CHECK_ADVICE["params_move"] in text  # the first failed check's advice
    assert "evidence contract" in look_at(_records()[1])
    assert "Re-run the notebook top to bottom" not in text


def test_gradescope_keeps_an_errored_notebooks_exercise_in_the_maximum(tmp_path):
    records = _records()
    write_results(records, tmp_path)
    data = gradescope_results(records)
    maximum = sum(t["max_score"] for t in data["tests"])
    assert maximum == 2 * exercise_max()  # A (could not be graded) and B, not B alone
    assert f"of {maximum:g} points" in data["output"]


def test_the_feedback_page_is_styled_for_laptop_and_phone(tmp_path):
    write_results(_records(), tmp_path)
    page = (tmp_path / "feedback" / "ann.html").read_text()
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert "<style>" in page and "max-width:42rem" in page and "overflow-wrap:anywhere" in page
