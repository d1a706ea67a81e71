"""Lesson times come from one method applied to the notebooks; README and the CLI map show its result."""

from __future__ import annotations

import json

import pytest

from autograd_course import COURSE_MAP
from autograd_course.course import challenge_minutes, course_map_text, course_root, exercise_notebooks
from autograd_course.course_times import estimate
from autograd_course.readme_map import BEGIN, END, course_map_markdown, main, updated_readme


def notebook(tmp_path, cells):
    path = tmp_path / "00_x.ipynb"
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
    found = estimate(notebook(tmp_path, cells))
    assert (found.words, found.code_lines, found.activities, found.parts) == (6, 4, 1, 0)
    assert found.minutes == 10  # 6/130 + 4/8 + 5 = 5.55, rounded up to 5s
    assert "4 code lines" in repr(found)


def test_minutes_grow_with_words_lines_activities_and_parts(tmp_path):
    words = md(" ".join(["word"] * 1300))  # 10 minutes of reading
    assert estimate(notebook(tmp_path, [words])).minutes == 10
    assert estimate(notebook(tmp_path, [words, code("x = 1\n" * 41)])).minutes == 20  # + 5.1 min of code
    part = code("stage = ...", role={"exercise": "A", "part": 1, "role": "answer"})
    assert estimate(notebook(tmp_path, [words, part])).minutes == 25  # 10 + a line + a 10-minute part


def test_every_lesson_and_the_challenge_have_a_time():
    assert all(lesson.minutes >= 15 for lesson in COURSE_MAP)
    assert challenge_minutes() == sum(estimate(nb).minutes for nb in exercise_notebooks()) > 0
    assert f"{challenge_minutes()} min" in course_map_text()


def test_readme_course_map_is_current():
    readme = (course_root() / "README.md").read_text(encoding="utf-8")
    assert updated_readme(readme) == readme, "README.md is stale: run python -m autograd_course.readme_map"
    assert f"{challenge_minutes()} min" in course_map_markdown()


def test_readme_map_rewrites_a_stale_readme_and_check_says_so(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n{BEGIN}\n| 00 | old | old | 1 |\n{END}\n\nafter\n", encoding="utf-8")
    assert main(["--check", "--readme", str(readme)]) == 1
    assert "stale" in capsys.readouterr().err
    assert main(["--readme", str(readme)]) == 0
    text = readme.read_text(encoding="utf-8")
    assert text.endswith(f"{END}\n\nafter\n") and course_map_markdown() in text
    assert main(["--check", "--readme", str(readme)]) == 0


def test_readme_without_markers_is_bad_input(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("# no markers\n", encoding="utf-8")
    assert main(["--readme", str(readme)]) == 2
    assert BEGIN in capsys.readouterr().err
    with pytest.raises(ValueError):
        updated_readme(f"{END}{BEGIN}")
