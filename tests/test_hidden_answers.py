"""A learner's copy never shows a predict task's answer before they answer.

Cells whose output gives an activity's answer away carry the metadata
`{"autograd_course": {"reveals": "NN.k"}}` (data in the notebook, so any lesson can declare it). The stored
lessons keep those outputs for nbval; the copies `autograd-course start` and `reset` make have them cleared,
and every other output kept.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from autograd_course.course import course_notebooks
from autograd_course.protocol import META_KEY
from autograd_course.workspace import LESSONS, copy_notebook, hide_revealed_answers, populate
from autograd_course.yourturn import activities, lessons_with_activities

NOTEBOOKS = {p.name[:2]: p for p in course_notebooks()}


def load(path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def meta(cell: dict[str, Any]) -> dict[str, Any]:
    return cell.get("metadata", {}).get(META_KEY, {})


def text_of(cell: dict[str, Any]) -> str:
    parts = []
    for out in cell.get("outputs", []):
        parts.append("".join(out.get("text", "")))
        parts.append("".join(out.get("data", {}).get("text/plain", "")))
    return "".join(parts)


@pytest.mark.parametrize("lesson", sorted(NOTEBOOKS))
def test_reveal_markers_name_an_activity_answered_before_them(lesson: str) -> None:
    nb = load(NOTEBOOKS[lesson])
    declared = {a.id for a in activities(lesson)} if lesson in lessons_with_activities() else set()
    answers = {meta(c)["yourturn"]: i for i, c in enumerate(nb["cells"]) if meta(c).get("role") == "answer"}
    for i, cell in enumerate(nb["cells"]):
        activity = meta(cell).get("reveals")
        if activity is None:
            continue
        assert activity in declared, f"{lesson} cell {i} reveals {activity!r}, not an activity of this lesson"
        assert cell["cell_type"] == "code" and cell.get("outputs"), (
            f"{lesson} cell {i}: mark a code cell with output"
        )
        assert i > answers[activity], f"{lesson} cell {i} reveals {activity} before its answer cell"


def test_predict_tasks_of_the_first_lessons_are_marked() -> None:
    marked = {meta(c).get("reveals") for p in NOTEBOOKS.values() for c in load(p)["cells"]}
    assert {"01.2", "03.1", "05.2", "06.1"} <= marked


def test_start_copies_hide_revealing_outputs_and_keep_the_rest(tmp_path) -> None:
    populate(tmp_path)
    hidden = 0
    for lesson, source in NOTEBOOKS.items():
        stored, copied = load(source), load(tmp_path / LESSONS / source.name)
        assert len(stored["cells"]) == len(copied["cells"]), lesson
        answers_shown = " ".join(text_of(c) for c in copied["cells"])
        elsewhere = {
            line for c in stored["cells"] if not meta(c).get("reveals") for line in text_of(c).splitlines()
        }
        for i, (old, new) in enumerate(zip(stored["cells"], copied["cells"])):
            if meta(old).get("reveals"):
                hidden += 1
                assert new["outputs"] == [] and new["execution_count"] is None, (
                    f"{lesson} cell {i} still shows"
                )
                own = [line for line in text_of(old).splitlines() if line.strip() and line not in elsewhere]
                assert own, f"{lesson} cell {i}: its output says nothing that no other cell says"
                assert not any(line in answers_shown for line in own), f"{lesson} cell {i}'s answer is shown"
            elif old["cell_type"] == "code":
                assert new["outputs"] == old["outputs"], (
                    f"{lesson} cell {i}: an output that reveals nothing was lost"
                )
        assert load(source) == stored, f"{lesson}: the stored lesson changed"
    assert hidden >= 4


def test_the_second_backward_answers_of_03_1_are_not_in_the_copy(tmp_path) -> None:
    populate(tmp_path)
    (copy,) = (tmp_path / LESSONS).glob("03_*.ipynb")
    shown = " ".join(text_of(c) for c in load(copy)["cells"])
    assert "no error, x.grad after one pass" in text_of_all(NOTEBOOKS["03"])
    assert "no error, x.grad after one pass" not in shown


def text_of_all(path) -> str:
    return " ".join(text_of(c) for c in load(path)["cells"])


def test_reset_copies_hide_them_too(tmp_path) -> None:
    target = tmp_path / "lessons" / NOTEBOOKS["03"].name
    copy_notebook(NOTEBOOKS["03"], target, lesson=True)
    assert "no error, x.grad after one pass" not in text_of_all(target)


def test_any_lesson_can_declare_it_by_metadata() -> None:
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "metadata": {META_KEY: {"reveals": "13.1"}},
                "outputs": [{"text": "7"}],
                "execution_count": 4,
            },
            {"cell_type": "code", "metadata": {}, "outputs": [{"text": "kept"}], "execution_count": 5},
        ]
    }
    assert hide_revealed_answers(nb) == ["13.1"]
    assert nb["cells"][0]["outputs"] == [] and nb["cells"][0]["execution_count"] is None
    assert nb["cells"][1]["outputs"] == [{"text": "kept"}]
