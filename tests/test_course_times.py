"""Lesson times come from one method applied to the notebooks; README and the CLI map show its result."""

from __future__ import annotations

import json

import pytest

from autograd_course import COURSE_MAP, stated_times
from autograd_course.course import (
    challenge_minutes,
    content_dir,
    course_map_text,
    course_root,
    exercise_notebooks,
)
from autograd_course.course_times import ACTIVITY_MINUTES, activity_kind, declared_solutions, estimate
from autograd_course.readme_map import BEGIN, END, course_map_markdown, main, updated_readme
from autograd_course.stated_times import stale_lessons, stated_minutes, time_line, update_lesson


def notebook(tmp_path, cells):
    path = tmp_path / "00_x.ipynb"
    cells = [{"id": f"cell-{i}", **cell} for i, cell in enumerate(cells)]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def md(text):
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def code(text, tags=(), role=None):
    meta = {"tags": list(tags)} if tags else {}
    if role:
        meta["autograd_course"] = role
    return {"cell_type": "code", "metadata": meta, "source": text, "outputs": [], "execution_count": None}


def test_prose_leaves_out_fenced_blocks_and_code_leaves_out_setup(tmp_path):
    cells = [
        md(
            [
                "# Title words\n",
                "\n",
                "```mermaid\n",
                "flowchart LR\n",
                "  A --> B\n",
                "```\n",
                "three more words",
            ]
        ),
        code("import os\nprint(1)", tags=["setup"]),
        code("seed: int = 0", tags=["parameters"]),
        code("x = 1\n\n\ny = 2\n"),
        code("answer = ...", role={"yourturn": "00.1", "role": "answer"}),
        code("tasks.q1.check()", role={"yourturn": "00.1", "role": "check"}),
    ]
    found = estimate(notebook(tmp_path, cells), solutions={"00.1": "answer = 3.0"})
    assert (found.words, found.code_lines, found.activities, found.parts) == (6, 4, ("predict",), 0)
    assert found.minutes == 10  # 6/130 + 4/8 + 5 = 5.55, rounded up to 5s
    assert "4 code lines" in repr(found) and "(predict)" in repr(found)


def test_minutes_grow_with_words_lines_activities_and_parts(tmp_path):
    words = md(" ".join(["word"] * 1300))  # 10 minutes of reading
    assert estimate(notebook(tmp_path, [words])).minutes == 10
    assert estimate(notebook(tmp_path, [words, code("x = 1\n" * 41)])).minutes == 20  # + 5.1 min of code
    part = code("stage = ...", role={"exercise": "A", "part": 1, "role": "answer"})
    assert estimate(notebook(tmp_path, [words, part])).minutes == 25  # 10 + a line + a 10-minute part


def test_an_activity_counts_by_what_it_asks():
    assert activity_kind("answer = ...", "answer = 48.0") == "predict"
    assert activity_kind("leaves = ...", 'leaves = {"a", "c"}\nstage = Stage.OK') == "predict"
    assert activity_kind("g = ...", 'g = [float("inf"), -0.25]') == "predict"
    assert activity_kind("loss = ...", "h = model(x)\nloss = h.sum()") == "fix"  # lines of code
    given = "def step(model):\n    loss.backward()\n\n\nstep = ..."
    assert activity_kind(given, "def step(model):\n    model.zero_grad()") == "fix"  # given code to change
    assert activity_kind("HeldNet = ...", "class HeldNet:\n    pass") == "write"
    assert activity_kind("f = ...", "f = lambda t: t.detach()") == "write"
    assert ACTIVITY_MINUTES["predict"] < ACTIVITY_MINUTES["fix"] < ACTIVITY_MINUTES["write"]


def test_activity_minutes_are_weighted_by_kind(tmp_path):
    answer = code("name = ...", role={"yourturn": "00.1", "role": "answer"})
    path = notebook(tmp_path, [md(" ".join(["word"] * 1283)), answer])  # with the answer's line: 9.99 minutes
    minutes = {
        kind: estimate(path, solutions={"00.1": solution}).minutes
        for kind, solution in {
            "predict": "name = 1",
            "fix": "name = f(1)",
            "write": "def name():\n    pass",
        }.items()
    }
    assert minutes == {"predict": 15, "fix": 20, "write": 25}


def test_an_activity_without_a_declared_solution_is_an_error(tmp_path):
    answer = code("name = ...", role={"yourturn": "00.9", "role": "answer"})
    with pytest.raises(ValueError, match=r"00\.9"):
        estimate(notebook(tmp_path, [answer]), solutions={})


def test_every_lesson_and_the_challenge_have_a_time():
    assert all(lesson.minutes >= 15 for lesson in COURSE_MAP)
    assert challenge_minutes() == sum(estimate(nb).minutes for nb in exercise_notebooks()) > 0
    assert f"{challenge_minutes()} min" in course_map_text()


def test_readme_course_map_is_current():
    readme = (course_root() / "README.md").read_text(encoding="utf-8")
    assert updated_readme(readme) == readme, "README.md is stale: run python -m autograd_course.readme_map"
    assert f"{challenge_minutes()} min" in course_map_markdown()


def test_readme_map_rewrites_a_stale_readme_and_check_says_so(tmp_path, capsys):
    readme, lessons = tmp_path / "README.md", tmp_path / "notebooks"
    lessons.mkdir()
    readme.write_text(f"# x\n\n{BEGIN}\n| 00 | old | old | 1 |\n{END}\n\nafter\n", encoding="utf-8")
    options = ["--readme", str(readme), "--notebooks", str(lessons)]
    assert main(["--check", *options]) == 1
    assert "stale" in capsys.readouterr().err
    assert main(options) == 0
    text = readme.read_text(encoding="utf-8")
    assert text.endswith(f"{END}\n\nafter\n") and course_map_markdown() in text
    assert main(["--check", *options]) == 0


def test_every_lesson_states_the_time_the_readme_map_and_the_method_give():
    readme = (course_root() / "README.md").read_text(encoding="utf-8")
    assert stale_lessons(content_dir("notebooks")) == {}, "run python -m autograd_course.readme_map"
    for lesson in COURSE_MAP:
        stated = stated_minutes(lesson.notebook())
        assert stated == estimate(lesson.notebook()).minutes == lesson.minutes, lesson
        assert f"| {lesson.number} | {lesson.title} | {lesson.learn} | {stated} |" in readme


def test_readme_map_writes_a_lessons_time_under_its_goal_and_keeps_it_current(tmp_path, capsys, monkeypatch):
    lessons = tmp_path / "notebooks"
    lessons.mkdir()
    readme = tmp_path / "README.md"
    readme.write_text(f"{BEGIN}\n{END}\n", encoding="utf-8")
    goal = md("# 00 · X\n\n## Goal\n\n" + " ".join(["word"] * 1300))
    lesson = notebook(lessons, [goal, code("x = 1\n" * 41)])
    before = estimate(lesson)
    options = ["--readme", str(readme), "--notebooks", str(lessons)]
    assert stated_minutes(lesson) is None and stale_lessons(lessons) == {"00_x.ipynb": before}
    assert main(["--check", *options]) == 1 and "00_x.ipynb" in capsys.readouterr().err
    estimated = []
    monkeypatch.setattr(stated_times, "estimate", lambda path: estimated.append(path) or estimate(path))
    assert main(options) == 0
    assert estimated == [lesson], "a stale lesson is estimated once, then written with that estimate"
    monkeypatch.undo()
    text = json.loads(lesson.read_text(encoding="utf-8"))["cells"][0]["source"]
    text = "".join(text) if isinstance(text, list) else text
    assert text.startswith(f"# 00 · X\n\n## Goal\n\n{time_line(before)}\n\nword")
    assert (
        stated_minutes(lesson) == before.minutes == estimate(lesson).minutes == 20
    )  # the line is not reading
    assert main(["--check", *options]) == 0 and not update_lesson(lesson)  # nothing left to change


def test_a_lesson_without_a_goal_heading_is_bad_input(tmp_path, capsys):
    lessons = tmp_path / "notebooks"
    lessons.mkdir()
    readme = tmp_path / "README.md"
    readme.write_text(f"{BEGIN}\n{END}\n", encoding="utf-8")
    notebook(lessons, [md("# 00 · X\n\nno goal here")])
    assert main(["--readme", str(readme), "--notebooks", str(lessons)]) == 2
    assert "## Goal" in capsys.readouterr().err


def test_readme_without_markers_is_bad_input(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("# no markers\n", encoding="utf-8")
    assert main(["--readme", str(readme)]) == 2
    assert BEGIN in capsys.readouterr().err
    with pytest.raises(ValueError):
        updated_readme(f"{END}{BEGIN}")


def test_solutions_read_from_source_are_the_declared_ones():
    from autograd_course.yourturn.engine import activities, lessons_with_activities

    for lesson in lessons_with_activities():
        assert declared_solutions(lesson) == {a.id: a.solution for a in activities(lesson)}, lesson
    assert declared_solutions("99") == {}
