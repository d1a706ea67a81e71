"""COURSE_MAP is the single source of the course map; README's table must say the same."""

import re

from autograd_course import COURSE_MAP
from autograd_course.course import Lesson, course_notebooks, course_root

README = course_root() / "README.md"


def _readme_rows() -> list[tuple[str, str, str, int]]:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Course map", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"\d\d", cells[0]):
            rows.append((cells[0], cells[1], cells[2], int(cells[3])))
    return rows


def test_readme_course_map_equals_course_map():
    rows = _readme_rows()
    assert rows, "README.md has no course map table"
    assert rows == [(lesson.number, lesson.title, lesson.learn, lesson.minutes) for lesson in COURSE_MAP]


def test_course_map_is_numbered_in_order():
    assert [lesson.number for lesson in COURSE_MAP] == [f"{i:02d}" for i in range(len(COURSE_MAP))]
    assert all(isinstance(lesson, Lesson) and lesson.minutes > 0 for lesson in COURSE_MAP)
    assert len({lesson.title for lesson in COURSE_MAP}) == len(COURSE_MAP)
    assert repr(COURSE_MAP[0]) == f"Lesson(00 'The mental model', {COURSE_MAP[0].minutes} min)"


def test_course_notebooks_are_numbered_files_in_order(tmp_path, monkeypatch):
    folder = tmp_path / "notebooks"
    folder.mkdir()
    for name in ["01_b.ipynb", "00_a.ipynb", "notes.ipynb", "10_c.ipynb", "02_d.txt"]:
        (folder / name).write_text("{}")
    monkeypatch.setenv("AUTOGRAD_COURSE_ROOT", str(tmp_path))
    assert course_root() == tmp_path.resolve()
    assert [p.name for p in course_notebooks()] == ["00_a.ipynb", "01_b.ipynb", "10_c.ipynb"]


def test_every_lesson_of_the_course_map_has_its_notebook():
    numbers = {p.name[:2] for p in course_notebooks()}
    missing = [f"{lesson.number} {lesson.title}" for lesson in COURSE_MAP if lesson.number not in numbers]
    assert not missing, f"lessons of the course map without a notebook in notebooks/: {missing}"
    extra = sorted(numbers - {lesson.number for lesson in COURSE_MAP})
    assert not extra, f"notebooks/ holds lessons the course map lacks: {extra}"
