"""The learners' install of a graded release (no course notebooks of its own): its README names only
commands that install has, `reset` restores from the clone's upstream, `learn` and `progress` say in
one line on stderr what to do instead."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from autograd_course.cli import main
from autograd_instructor.classroom.graded_release import README_COMMANDS


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("graded")
    (root / "roster.csv").write_text("id,name\nada,Ada Lovelace\n")
    assert main(["release", str(root / "student"), "--graded", "--roster", str(root / "roster.csv")]) == 0
    return root / "student"


@pytest.fixture
def learners_install(tmp_path, monkeypatch):
    """This process seen as the learners' install: a course root without notebooks."""
    monkeypatch.setenv("AUTOGRAD_COURSE_ROOT", str(tmp_path / "no-content"))


def test_the_graded_readme_names_only_commands_the_learners_install_has(release):
    readme = (release / "README.md").read_text()
    named = set(re.findall(r"autograd-course ([a-z][a-z-]*)", readme))
    shipped = {
        p.stem.replace("_", "-") for p in (release / "course" / "autograd_course" / "commands").glob("*.py")
    }
    assert named == set(README_COMMANDS) and named <= shipped
    assert "check" not in named and "graded by your instructor" in readme


def test_learn_and_progress_say_in_one_line_what_to_do_instead(learners_install, tmp_path, capsys):
    for argv in (["learn", str(tmp_path / "w"), "--print"], ["progress", "--dir", str(tmp_path / "w")]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "open notebooks/ (the lessons) and exercises/" in err, err
    assert not (tmp_path / "w").exists()


def _git(folder: Path, *args: str) -> None:
    who = ["-c", "user.email=hub@example.edu", "-c", "user.name=hub"]
    subprocess.run(["git", *who, *args], cwd=folder, check=True, capture_output=True)


def test_reset_restores_an_exercise_and_a_lesson_from_the_clones_upstream(
    release, learners_install, tmp_path, capsys
):
    origin = tmp_path / "origin"
    shutil.copytree(release, origin, ignore=shutil.ignore_patterns("course"))
    _git(origin, "init", "-q", "-b", "student")
    _git(origin, "add", "-A")
    _git(origin, "commit", "-qm", "release")
    _git(tmp_path, "clone", "-q", "--branch", "student", str(origin), "home")
    clone = tmp_path / "home"
    exercise = next((clone / "exercises").glob("A_*.ipynb"))
    lesson = next((clone / "notebooks").glob("03_*.ipynb"))
    for path in (exercise, lesson):
        path.write_text('{"mine": true}')
    _git(clone, "commit", "-qam", "WIP")  # nbgitpuller commits the learner's edits on the local branch
    assert main(["reset", "a", "--dir", str(clone / "exercises")]) == 0
    assert main(["reset", "03", "--dir", str(clone / "notebooks")]) == 0
    assert exercise.read_bytes() == (origin / "exercises" / exercise.name).read_bytes()
    assert lesson.read_bytes() == (origin / "notebooks" / lesson.name).read_bytes()
    backups = list((clone / "exercises" / "backups").glob("A_*.ipynb"))
    assert [b.read_text() for b in backups] == ['{"mine": true}']
    capsys.readouterr()
    loose = tmp_path / "downloaded"
    loose.mkdir()
    (loose / exercise.name).write_text("{}")
    assert main(["reset", "A", "--dir", str(loose)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "click your course link again" in err
    assert main(["reset", "Z", "--dir", str(loose)]) == 2
    assert "no notebook 'Z'" in capsys.readouterr().err
