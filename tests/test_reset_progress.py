"""After `reset` the learner keeps their place: progress and learn read the restored file as the course's."""

from __future__ import annotations

import json
import os
import shlex
import time
from pathlib import Path

import pytest

from autograd_course.cli import main
from autograd_course.learner_path import exercise_states, lesson_states


def _lesson(ws: Path, number: str) -> Path:
    return next((ws / "lessons").glob(f"{number}_*.ipynb"))


def _exercise(ws: Path, ex_id: str) -> Path:
    return next(ws.glob(f"{ex_id}_*.ipynb"))


def _at(path: Path, seconds_ago: float) -> None:
    stamp = time.time() - seconds_ago
    os.utime(path, (stamp, stamp))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace that arrived 10 minutes ago."""
    ws = tmp_path / "my-work"
    assert main(["start", str(ws)]) == 0
    for nb in [*ws.glob("*.ipynb"), *(ws / "lessons").glob("*.ipynb")]:
        _at(nb, 600)
    return ws


def _progress_lines(ws: Path, capsys) -> dict[str, str]:
    capsys.readouterr()
    assert main(["progress", "--dir", str(ws)]) == 0
    return {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.startswith("  ")}


def _learn_opens(ws: Path, capsys) -> str:
    capsys.readouterr()
    assert main(["learn", str(ws), "--print"]) == 0
    [url] = [a for a in shlex.split(capsys.readouterr().out) if a.startswith("--LabApp.default_url=")]
    return url.removeprefix("--LabApp.default_url=/lab/tree/")


def test_a_reset_exercise_is_not_changed_since_its_last_check(ws, capsys):
    a = _exercise(ws, "A")
    _at(a, 300)  # the learner worked on A, then checked it
    progress = {a.name: {"mtime": a.stat().st_mtime, "passed": True, "statuses": ["part 1: passed"]}}
    (ws / ".autograd-course").mkdir()
    (ws / ".autograd-course" / "progress.json").write_text(json.dumps(progress))
    assert _progress_lines(ws, capsys)["A"].endswith("done")
    assert main(["reset", "A", "--dir", str(ws)]) == 0
    line = _progress_lines(ws, capsys)["A"]
    assert "changed since the last check" not in line and line.endswith("reset, not checked since"), line
    assert not exercise_states(ws)[0].done
    a.write_text(a.read_text())  # the learner saves it after the reset: now it did change since the check
    _at(a, -5)
    assert "changed since the last check" in _progress_lines(ws, capsys)["A"]


def test_learn_resumes_where_the_learner_stopped_not_at_a_reset_lesson(ws, capsys):
    worked = _lesson(ws, "03")
    _at(worked, 120)  # saved two minutes ago, activities still to do
    assert _learn_opens(ws, capsys) == f"lessons/{worked.name}"
    other = _lesson(ws, "05")
    _at(other, 60)
    assert main(["reset", "05", "--dir", str(ws)]) == 0
    assert _learn_opens(ws, capsys) == f"lessons/{worked.name}"
    assert {s.number: s.opened for s in lesson_states(ws)}["05"] is False  # as fresh as the course's copy
    assert main(["reset", "A", "--dir", str(ws)]) == 0  # an exercise reset does not move the learner either
    assert _learn_opens(ws, capsys) == f"lessons/{worked.name}"


def test_learn_after_resetting_the_only_notebook_worked_on_starts_from_the_first_not_done(ws, capsys):
    _at(_lesson(ws, "03"), 120)
    assert main(["reset", "3", "--dir", str(ws)]) == 0
    assert _learn_opens(ws, capsys) == f"lessons/{_lesson(ws, '00').name}"


@pytest.mark.parametrize("name", ["4", "04", "04_inplace_operations", "04_inplace_operations.ipynb"])
def test_reset_takes_a_lesson_number_with_or_without_its_leading_zero(ws, capsys, name):
    lesson = _lesson(ws, "04")
    assert lesson.name == "04_inplace_operations.ipynb" or not name.startswith("04_")
    lesson.write_text("{}")
    assert main(["reset", name, "--dir", str(ws)]) == 0, capsys.readouterr().err
    assert json.loads(lesson.read_text(encoding="utf-8"))["cells"], "the lesson was restored"
    assert f"restored {lesson}" in capsys.readouterr().out


def test_reset_refuses_a_lesson_number_the_course_does_not_have(ws, capsys):
    assert main(["reset", "99", "--dir", str(ws)]) == 2
    assert "no exercise or lesson '99'" in capsys.readouterr().err
