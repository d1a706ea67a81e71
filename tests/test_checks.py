"""The one check view: activities and challenge parts look, word and record usage the same way."""

from __future__ import annotations

import json
import re

import nbformat
import pytest

from autograd_course.checks import (
    USAGE_MIME,
    Outcome,
    Verdict,
    attempts_per_part,
    recorded,
    usage_records,
)
from autograd_course.yourturn import your_turn
from autograd_instructor.challenge import Challenge


def _shape(html: str) -> str:
    """The markup with the texts taken out: what the learner sees as the look."""
    return re.sub(r">[^<]*<", "><", re.sub(r"background:#[0-9a-f]{6}", "background:X", html))


def test_an_activity_and_a_challenge_part_share_one_look_and_wording():
    activity = Verdict("00.1", None, Outcome.INCORRECT, "you set 3")
    part = Verdict("A", 1, Outcome.INCORRECT, "the evidence is a number")
    assert activity.text() == "Your turn 00.1: incorrect. you set 3"
    assert part.text() == "A part 1: incorrect. the evidence is a number"
    assert _shape(activity._repr_html_()) == _shape(part._repr_html_())
    assert "<b>A part 1: incorrect.</b>" in part._repr_html_()


def test_hints_are_worded_the_same_for_activities_and_parts(capsys):
    your_turn("00", {}).q1.hint(2)
    Challenge("A", {"seed": 0}).part1.hint(2)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Hint 2 of 2: ") and lines[1].startswith("Hint 2 of 2: ")


def test_every_challenge_check_call_is_recorded_and_activity_checks_are_not(capsys):
    ex = Challenge("B", {"seed": 0})
    ex.part1.check()
    ex.part1.check()
    ex.part2.check()
    assert [(u["part"], u["kind"]) for u in ex.usage] == [(1, "check"), (1, "check"), (2, "check")]
    task = your_turn("00", {}).q1
    task.check()
    task.hint()
    assert [u["kind"] for u in task.usage] == ["hint"]


def _notebook(*records: dict) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    outputs = [
        nbformat.v4.new_output("display_data", data={USAGE_MIME: r, "text/plain": ""}) for r in records
    ]
    nb.cells = [nbformat.v4.new_code_cell("ex.part1.check()", outputs=outputs)]
    return nb


def test_attempts_per_part_counts_the_check_records_of_a_notebook():
    nb = _notebook(
        {"exercise": "A", "part": 1, "kind": "check", "level": 1},
        {"exercise": "A", "part": 1, "kind": "check", "level": 1},
        {"exercise": "A", "part": 1, "kind": "hint", "level": 1},
        {"exercise": "A", "part": 2, "kind": "check", "level": 1},
        {"exercise": "A", "part": True, "kind": "check", "level": 1},
        {"kind": "check"},
    )
    assert attempts_per_part(nb) == {("A", 1): 2, ("A", 2): 1}
    assert len(usage_records(nb)) == 5
    assert attempts_per_part(json.loads(nbformat.writes(nb))) == {("A", 1): 2, ("A", 2): 1}  # plain JSON


def test_the_usage_decorator_refuses_an_unknown_kind():
    with pytest.raises(ValueError, match="usage kind"):
        recorded("peek")
