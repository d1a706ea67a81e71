"""docs/classroom.md says what the code does: whose id a learner has (sections 2 and 3), what a graded
notebook shows, and which commands the learners' install offers."""

from __future__ import annotations

import json
import re

import nbformat

from autograd_course.course import course_root, exercise_notebooks
from autograd_course.learner import read_learner
from autograd_instructor.classroom.graded_release import README_COMMANDS, graded_notebook, what_graded_shows

CLASSROOM = (course_root() / "docs" / "classroom.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    return " ".join(CLASSROOM.split(f"### {title}", 1)[1].split("\n### ", 1)[0].split())


def test_sections_2_and_3_give_the_learner_id_read_learner_reads(tmp_path, monkeypatch):
    release, links = _section("2. Make the student release"), _section("3. Give learners the links")
    assert "must be in `AUTOGRAD_COURSE_LEARNER`" not in release
    assert "the hub user name, with nothing to set" in release
    assert "is their hub user name (`$JUPYTERHUB_USER`), with nothing to set" in links
    order = re.search(r"in this order: `(\w+)` when set, then the `(course\.json)`", links)
    assert order and order.groups() == ("AUTOGRAD_COURSE_LEARNER", "course.json")
    monkeypatch.delenv("AUTOGRAD_COURSE_LEARNER", raising=False)
    monkeypatch.setenv("JUPYTERHUB_USER", "ada")
    assert read_learner(tmp_path) == "ada"  # nothing set: the user name
    (tmp_path / "course.json").write_text(json.dumps({"learner": "s-4711"}))
    assert read_learner(tmp_path) == "s-4711"
    monkeypatch.setenv("AUTOGRAD_COURSE_LEARNER", "env-id")
    assert read_learner(tmp_path) == "env-id"


def test_a_graded_notebook_promises_no_verdict_and_the_docs_say_so():
    release = _section("2. Make the student release")
    assert 'their closing "What this teaches" says so' in release
    for path in exercise_notebooks():
        nb = what_graded_shows(graded_notebook(nbformat.read(path, as_version=4), path.name.split("_")[0]))
        (last,) = [c.source for c in nb.cells if c.source.startswith("## What this teaches")]
        assert "its verdict says" not in last and "never whether it is right" in last
        assert "\n\nNext: [" in last or path == exercise_notebooks()[-1]


def test_the_learners_commands_the_docs_name_are_the_readmes():
    release = _section("2. Make the student release")
    learners = release.split("learners need only", 1)[1].split("the one the release's README names", 1)[0]
    named = set(re.findall(r"`autograd-course (\w[\w-]*)", learners))
    assert named == set(README_COMMANDS)
    assert "`learn` and `progress` there say in one line to open the course folder" in release
