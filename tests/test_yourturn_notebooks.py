"""Your-turn activities: each has its answer and check cells, and stored lessons say *not attempted*.

The stored way reads the committed outputs (strict nbval proves they are what a run prints). The solved
way, every answer cell replaced by its declared solution and each check *correct*, is asserted in
tests/test_activity_answers.py, on the one run of each lesson that also judges its answer table.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import nbformat
import pytest

from autograd_course.course import course_notebooks
from autograd_course.yourturn import activities, lessons_with_activities
from autograd_course.yourturn.engine import verdict_of

LESSONS = {p.name[:2]: p for p in course_notebooks("notebooks")}
DECLARED = [n for n in lessons_with_activities() if n in LESSONS]
by_lesson = pytest.mark.parametrize("lesson", DECLARED)


def role_cells(nb: Any, role: str) -> dict[str, int]:
    """Activity id -> cell index of the cells carrying that role."""
    found: dict[str, int] = {}
    for i, cell in enumerate(nb.cells):
        meta = cell.get("metadata", {}).get("autograd_course", {})
        if meta.get("role") == role and "yourturn" in meta:
            assert meta["yourturn"] not in found, f"two {role} cells for {meta['yourturn']}"
            found[meta["yourturn"]] = i
    return found


@cache
def stored(lesson: str) -> Any:
    """The committed lesson."""
    return nbformat.read(LESSONS[lesson], as_version=4)


def verdicts(nb: Any) -> dict[str, str]:
    """Activity id -> the outcome its check cell shows; every check cell must show exactly one."""
    seen: dict[str, str] = {}
    for activity_id, i in role_cells(nb, "check").items():
        found = [v for out in nb.cells[i].get("outputs", []) if (v := verdict_of(out))]
        assert len(found) == 1, f"check cell of {activity_id} shows {len(found)} verdicts, expected one"
        assert found[0]["id"] == activity_id, f"check cell of {activity_id} checks {found[0]['id']}"
        seen[activity_id] = found[0]["outcome"]
    return seen


def test_lessons_with_tagged_cells_declare_them() -> None:
    tagged = [n for n in LESSONS if role_cells(stored(n), "answer") or role_cells(stored(n), "check")]
    assert set(tagged) <= set(DECLARED), (
        f"lessons {sorted(set(tagged) - set(DECLARED))} tag cells but declare nothing"
    )


@by_lesson
def test_every_activity_has_an_answer_then_a_check_cell(lesson: str) -> None:
    nb = stored(lesson)
    ids = [a.id for a in activities(lesson)]
    answers, checks = role_cells(nb, "answer"), role_cells(nb, "check")
    assert sorted(answers) == ids, f"{lesson}: answer cells for {sorted(answers)}, declared {ids}"
    assert sorted(checks) == ids, f"{lesson}: check cells for {sorted(checks)}, declared {ids}"
    in_flow = sorted(answers, key=answers.__getitem__)
    assert in_flow == ids, f"{lesson}: the activities appear as {in_flow}; number them in reading order"
    for activity_id in ids:
        assert answers[activity_id] < checks[activity_id], f"{activity_id}: the check comes before the answer"
        q = f"q{activity_id.split('.')[1]}"
        check_source = nb.cells[checks[activity_id]].source
        assert re.search(rf"\btasks\.{q}\.check\(\)", check_source), (
            f"{activity_id}: check cell must call tasks.{q}.check()"
        )
    assert re.search(rf'your_turn\("{lesson}", globals\(\)\)', "\n".join(c.source for c in nb.cells)), lesson


@by_lesson
def test_stored_lesson_shows_every_activity_not_attempted(lesson: str) -> None:
    shown = verdicts(stored(lesson))
    assert shown == dict.fromkeys(shown, "not attempted"), f"{lesson}: stored verdicts {shown}"


def test_solutions_are_not_the_stored_stubs() -> None:
    for lesson in DECLARED:
        for activity in activities(lesson):
            answer = stored(lesson).cells[role_cells(stored(lesson), "answer")[activity.id]].source
            assert activity.solution.strip() not in answer, (
                f"{activity.id}: the stored answer cell is already solved"
            )
            assert "..." in answer, f"{activity.id}: the stored answer cell must hold the `= ...` stub"
