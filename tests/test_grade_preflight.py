"""A grader that cannot grade stops with exit 2 and says what to install, before any gradebook exists."""

from __future__ import annotations

import json

import nbformat
import pytest

import autograd_instructor.grading.preflight as preflight
from autograd_course.cli import main
from autograd_course.course import course_root
from autograd_instructor.grading.gradescope import _main as gradescope_main

pytestmark = pytest.mark.slow  # one probe kernel per test

SOLVED = next((course_root() / "solutions").glob("A_*.ipynb"))


@pytest.fixture
def broken_install(monkeypatch):
    """The probe kernel imports a module that is not installed, as a kernel without the course would."""
    monkeypatch.setattr(preflight, "PROBE", "import autograd_course_not_installed_here")


def test_grade_exits_2_naming_the_install_and_writes_no_gradebook(broken_install, tmp_path, capsys):
    subs = tmp_path / "subs"
    subs.mkdir()
    nbformat.write(nbformat.read(SOLVED, as_version=4), subs / "alice.ipynb")
    out = tmp_path / "results"
    assert main(["grade", str(subs), "--out", str(out), "--sandbox", "none"]) == 2
    err = capsys.readouterr().err
    assert "error: cannot grade here" in err and "ModuleNotFoundError" in err and "pip install" in err
    assert not out.exists()


def test_gradescope_writes_no_zero_score_when_it_cannot_grade(broken_install, tmp_path, capsys):
    (tmp_path / "submission").mkdir()
    nbformat.write(nbformat.read(SOLVED, as_version=4), tmp_path / "submission" / "A.ipynb")
    (tmp_path / "submission_metadata.json").write_text(json.dumps({"users": [{"sid": "s1"}]}))
    assert gradescope_main(["--root", str(tmp_path)]) == 2
    assert "cannot grade" in capsys.readouterr().err
    assert not (tmp_path / "results" / "results.json").exists()


def test_check_exits_2_when_its_kernel_cannot_import_the_course(broken_install, tmp_path, capsys):
    nbformat.write(nbformat.read(SOLVED, as_version=4), tmp_path / "A_detached_output.ipynb")
    assert main(["check", str(tmp_path)]) == 2
    assert "cannot grade in this installation" in capsys.readouterr().err
    assert not (tmp_path / ".autograd-course").exists()
