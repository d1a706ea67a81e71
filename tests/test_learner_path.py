"""The learner's path: `learn` opens JupyterLab at the next notebook; `progress` shows lessons, time left."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest

from autograd_course.cli import main
from autograd_course.commands import learn
from autograd_course.course import COURSE_MAP
from autograd_course.learner_path import earlier_lessons, exercise_states, lesson_states, next_notebook
from autograd_course.protocol import META_KEY

ACTIVITY_MIME = "application/vnd.autograd-course.yourturn+json"


def answer(lesson: Path, correct: int, later: float = 10.0) -> None:
    """Save a lesson as if the learner got its first `correct` activities right, `later` seconds on."""
    nb = json.loads(lesson.read_text(encoding="utf-8"))
    checks = [c for c in nb["cells"] if c["metadata"].get(META_KEY, {}).get("role") == "check"]
    for cell in checks[:correct]:
        activity = cell["metadata"][META_KEY]["yourturn"]
        data = {ACTIVITY_MIME: {"id": activity, "outcome": "correct"}, "text/plain": f"{activity}: correct."}
        cell["outputs"] = [{"output_type": "display_data", "data": data, "metadata": {}}]
    lesson.write_text(json.dumps(nb), encoding="utf-8")
    stamp = lesson.stat().st_mtime + later
    os.utime(lesson, (stamp, stamp))


def lesson_file(ws: Path, number: str) -> Path:
    return next((ws / "lessons").glob(f"{number}_*.ipynb"))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    ws = tmp_path / "my-work"
    assert main(["start", str(ws)]) == 0
    return ws


def test_learn_makes_the_workspace_and_opens_jupyterlab_at_lesson_00(tmp_path, monkeypatch, capsys):
    launched = []
    monkeypatch.setattr(learn, "launch", lambda command: launched.append(command) or 0)
    ws = tmp_path / "my-work"
    assert main(["learn", str(ws)]) == 0
    out = capsys.readouterr().out
    assert "notebooks copied" in out and "Opening lessons/00_mental_model.ipynb in JupyterLab" in out
    assert (ws / "lessons" / "00_mental_model.ipynb").is_file() and list(ws.glob("A_*.ipynb"))
    [command] = launched
    assert command[:3] == [sys.executable, "-m", "jupyterlab"]
    assert f"--ServerApp.root_dir={ws.resolve()}" in command  # the whole workspace, challenge included
    assert "--LabApp.default_url=/lab/tree/lessons/00_mental_model.ipynb" in command


def test_learn_resumes_the_lesson_saved_last_until_its_activities_are_done(ws, capsys):
    lesson_03 = lesson_file(ws, "03")
    answer(lesson_03, correct=1)
    assert main(["learn", str(ws), "--print"]) == 0
    assert "--LabApp.default_url=/lab/tree/lessons/03_backward_twice.ipynb" in shlex.split(
        capsys.readouterr().out
    )
    answer(lesson_03, correct=3)  # every activity of 03 right: on to 04
    assert main(["learn", str(ws), "--print"]) == 0
    assert f"--LabApp.default_url=/lab/tree/lessons/{lesson_file(ws, '04').name}" in capsys.readouterr().out


def test_after_the_last_lesson_comes_the_challenge_then_a_skipped_lesson(ws):
    for lesson in COURSE_MAP[1:]:  # 00 skipped
        answer(lesson_file(ws, lesson.number), correct=99)
    assert next_notebook(lesson_states(ws), exercise_states(ws)).name.startswith("A_")
    passed = {
        p.name: {"mtime": p.stat().st_mtime, "passed": True, "statuses": []} for p in ws.glob("*.ipynb")
    }
    (ws / ".autograd-course").mkdir()
    (ws / ".autograd-course" / "progress.json").write_text(json.dumps(passed))
    states = exercise_states(ws)
    assert states and all(e.done for e in states)
    assert next_notebook(lesson_states(ws), exercise_states(ws)) == lesson_file(ws, "00")
    answer(lesson_file(ws, "00"), correct=99, later=20)
    assert next_notebook(lesson_states(ws), exercise_states(ws)) is None


def test_learn_without_jupyterlab_says_how_to_get_it(ws, monkeypatch, capsys):
    monkeypatch.setattr(learn.importlib.util, "find_spec", lambda name: None)
    assert main(["learn", str(ws)]) == 2
    err = capsys.readouterr().err
    assert "JupyterLab is not installed" in err and "[lab]" in err and "00_mental_model.ipynb" in err


def test_learn_refuses_a_file_as_workspace(tmp_path, capsys):
    (tmp_path / "f").write_text("x")
    assert main(["learn", str(tmp_path / "f"), "--print"]) == 2
    assert "expected a folder for your workspace" in capsys.readouterr().err


def test_progress_shows_each_lessons_activities_and_the_time_left(ws, capsys):
    assert main(["progress", "--dir", str(ws)]) == 0
    before = capsys.readouterr().out
    answer(lesson_file(ws, "02"), correct=99)
    answer(lesson_file(ws, "05"), correct=1)
    assert main(["progress", "--dir", str(ws)]) == 0
    out = capsys.readouterr().out
    states = {s.number: s for s in lesson_states(ws)}
    row_02 = next(line for line in out.splitlines() if line.startswith("  02  "))
    assert f"{states['02'].total}/{states['02'].total} activities" in row_02 and row_02.endswith("done")
    row_05 = next(line for line in out.splitlines() if line.startswith("  05  "))
    assert f"1/{states['05'].total} activities" in row_05 and row_05.endswith("opened")
    assert f"0/{states['00'].total} activities" in next(
        line for line in out.splitlines() if line.startswith("  00  ")
    )

    def left(text: str) -> int:
        line = next(line for line in text.splitlines() if line.startswith("Time left"))
        hours, minutes = line.split(": ", 1)[1].split(" (")[0].replace(" min", "").split(" h ")
        return int(hours) * 60 + int(minutes)

    assert left(before) - left(out) == states["02"].minutes  # a lesson done takes its stated time off
    assert f"Next: {lesson_file(ws, '05')}" in out  # saved last and not done


def test_progress_and_class_progress_count_the_same_activities(ws, tmp_path, capsys):
    answer(lesson_file(ws, "01"), correct=1)
    answer(lesson_file(ws, "03"), correct=3)
    mine = sum(s.correct for s in lesson_states(ws))
    total = sum(s.total for s in lesson_states(ws))
    homes = tmp_path / "homes"
    (homes / "ada").mkdir(parents=True)
    os.rename(ws, homes / "ada" / "my-work")
    assert main(["class-progress", str(homes), "--json"]) == 0
    [room] = json.loads(capsys.readouterr().out)
    assert (room["activities_correct"], room["activities_total"]) == (mine, total) == (4, total)
    assert room["lessons_run"] == ["01", "03"]


def test_a_lesson_file_of_an_earlier_course_version_is_not_counted_as_todays_lesson(ws, tmp_path, capsys):
    """A workspace started before a lesson was split keeps the old file under the old number: lesson 12
    was the harness, now 13. Its correct activities must not be credited to today's lesson 12."""
    current = lesson_file(ws, "12")
    answer(lesson_file(ws, "13"), correct=99)
    earlier = ws / "lessons" / "12_debugging_harness.ipynb"
    lesson_file(ws, "13").rename(earlier)  # what the earlier version called it
    current.unlink()  # today's 12 not copied yet
    states = {s.number: s for s in lesson_states(ws)}
    assert (states["12"].path, states["12"].correct) == (None, 0)
    assert (states["13"].path, states["13"].correct) == (None, 0)
    assert earlier_lessons(ws) == [earlier]
    assert main(["progress", "--dir", str(ws)]) == 0
    out = capsys.readouterr().out
    assert "Kept from an earlier version of the course, not counted: 12_debugging_harness.ipynb" in out
    assert main(["start", str(ws)]) == 0  # adds today's lessons beside it, keeps the learner's file
    capsys.readouterr()
    assert current.is_file() and earlier.is_file()
    assert {s.number: s.correct for s in lesson_states(ws)}["12"] == 0
    homes = tmp_path / "homes"
    (homes / "ada").mkdir(parents=True)
    os.rename(ws, homes / "ada" / "my-work")
    assert main(["class-progress", str(homes), "--json"]) == 0
    [room] = json.loads(capsys.readouterr().out)
    assert room["activities_correct"] == 0 and room["lessons_run"] == []


def test_check_on_the_lessons_says_what_it_is_for_and_shows_their_activities(ws, capsys):
    answer(lesson_file(ws, "03"), correct=2)
    assert main(["check", str(ws / "lessons")]) == 0
    out = capsys.readouterr().out
    assert "grades the challenge notebooks" in out and "has none" in out
    assert "error" not in out and "no challenge cells" not in out
    assert "03_backward_twice.ipynb" in out and "2/3 activities correct" in out


def test_check_skips_lessons_and_other_notebooks_in_one_line_each(ws, monkeypatch, capsys):
    import autograd_instructor.grading.grade as grading
    from autograd_instructor.grading.results import Record

    graded = []
    monkeypatch.setattr(
        grading,
        "grade_folder",
        lambda subs, **kw: graded.extend(s.path.name for s in subs) or [Record("x", "A", 1, "passed", "ok")],
    )
    for lesson in (ws / "lessons").glob("0[0-2]_*.ipynb"):
        lesson.rename(ws / lesson.name)
    (ws / "scratch.ipynb").write_text("{}")
    assert main(["check", str(ws)]) == 0
    out = capsys.readouterr().out
    assert "skipped 3 lessons: they check their activities as you run them" in out
    assert "skipped scratch.ipynb: not a challenge notebook" in out
    assert graded and all(name[:2] not in ("00", "01", "02") and name != "scratch.ipynb" for name in graded)
