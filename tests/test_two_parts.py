"""The learner's part and the instructor's part are two packages: the learner's never imports the
instructor's, and a graded release's course/ is the learner's part copied as it is."""

from __future__ import annotations

import ast
import tomllib
from importlib.metadata import requires
from pathlib import Path

from packaging.requirements import Requirement

from autograd_instructor.classroom.graded_release import LEARNER_PACKAGES, LEARNER_PYPROJECT, _write_course

ROOT = Path(__file__).resolve().parent.parent


def _imported(path: Path) -> set[str]:
    """Every module a file names in an import, at any depth (inside functions too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


def _learner_files() -> list[Path]:
    return [
        p
        for package in LEARNER_PACKAGES
        for p in sorted((ROOT / package).rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and "content" not in p.relative_to(ROOT).parts[1:2]
    ]


def test_the_learners_part_imports_nothing_of_the_instructors():
    reaching = {
        str(p.relative_to(ROOT)): sorted(m for m in _imported(p) if m.split(".")[0] == "autograd_instructor")
        for p in _learner_files()
        if p.suffix == ".py"
    }
    assert {k: v for k, v in reaching.items() if v} == {}
    names = " ".join(p.read_text(encoding="utf-8") for p in _learner_files() if p.suffix == ".py")
    assert 'import_module("autograd_instructor' not in names  # no import by name either


def test_a_graded_release_copies_the_learners_part_as_it_is(tmp_path):
    written = _write_course(tmp_path)
    course = tmp_path / "course"
    copied = sorted(str(p.relative_to(course)) for p in written if p.name != "pyproject.toml")
    assert copied == sorted(str(p.relative_to(ROOT)) for p in _learner_files())  # nothing pruned
    for path in _learner_files():
        assert (course / path.relative_to(ROOT)).read_bytes() == path.read_bytes()
    own = ROOT / "autograd_course" / LEARNER_PYPROJECT
    assert (course / "pyproject.toml").read_bytes() == own.read_bytes()  # no pyproject made up at release
    assert not (course / "autograd_instructor").exists()


def test_both_parts_read_the_core_requirements_from_one_file():
    whole = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    learner = tomllib.loads((ROOT / "autograd_course" / LEARNER_PYPROJECT).read_text(encoding="utf-8"))
    for project in (whole, learner):
        assert set(project["project"]["dynamic"]) == {"version", "dependencies"}
        assert project["tool"]["setuptools"]["dynamic"] == whole["tool"]["setuptools"]["dynamic"]
    listed = [
        Requirement(line)
        for line in (ROOT / "autograd_course" / "requirements.txt").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    installed = [Requirement(r) for r in requires("autograd-debugging-course") or [] if "extra ==" not in r]
    assert sorted(map(str, installed)) == sorted(map(str, listed))
