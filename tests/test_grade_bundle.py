"""The Gradescope bundle's contents: a wheel of the course with its pins, named by setup.sh, or nothing.

Installing the bundle and grading with it, from a fresh non-editable install, is
tests/test_grade_installs.py (slow); these check what is in the zip and that an incomplete one is refused.
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
import zipfile
from pathlib import Path

import pytest

from autograd_course.cli import main
from autograd_instructor.grading import bundle
from autograd_instructor.grading.bundle import REQUIRED, BundleError, build_bundle

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return build_bundle(tmp_path_factory.mktemp("bundle") / "autograder.zip")


def _wheel(zip_path: Path) -> tuple[str, zipfile.ZipFile]:
    zf = zipfile.ZipFile(zip_path)
    (name,) = [n for n in zf.namelist() if n.endswith(".whl")]
    return name, zipfile.ZipFile(io.BytesIO(zf.read(name)))


def test_setup_sh_installs_the_wheel_the_bundle_carries_with_its_constraints(built):
    zf = zipfile.ZipFile(built)
    setup = zf.read("setup.sh").decode()
    (target,) = re.findall(
        r'-c /autograder/source/constraints.txt "/autograder/source/([^"]+)\[grade\]"', setup
    )
    assert target in zf.namelist() and target.endswith("-py3-none-any.whl")
    assert zf.read("constraints.txt") == (ROOT / "constraints.txt").read_bytes()
    for script in ("setup.sh", "run_autograder"):
        assert zf.getinfo(script).external_attr >> 16 & 0o111, script  # executable


def test_the_wheel_holds_the_grader_the_toolkit_and_the_exercises_but_no_solutions(built):
    _, wheel = _wheel(built)
    names = set(wheel.namelist())
    assert set(REQUIRED) <= names
    exercises = {n for n in names if n.startswith("autograd_course/content/exercises/")}
    assert len(exercises) == len(list((ROOT / "exercises").glob("*.ipynb")))
    assert not any("solutions" in n or "__pycache__" in n or n.endswith(".pyc") for n in names)
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    assert "Provides-Extra: grade" in wheel.read(meta).decode()
    entry = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "autograd-course = autograd_course.cli:main" in wheel.read(entry).decode()


def test_the_wheels_record_lists_every_file_with_its_hash(built):
    _, wheel = _wheel(built)
    record = next(n for n in wheel.namelist() if n.endswith(".dist-info/RECORD"))
    rows = [line.split(",") for line in wheel.read(record).decode().splitlines()]
    assert {r[0] for r in rows} == set(wheel.namelist())
    for name, digest, size in rows:
        if name == record:
            continue
        data = wheel.read(name)
        want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert (digest, size) == (f"sha256={want}", str(len(data))), name


def test_without_the_pins_no_bundle_is_written(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bundle, "checkout", lambda: None)
    monkeypatch.setattr(bundle, "PACKAGED", tmp_path / "no-content")
    out = tmp_path / "autograder.zip"
    with pytest.raises(BundleError, match=r"constraints\.txt"):
        build_bundle(out)
    assert main(["gradescope", "--out", str(out)]) == 2
    assert "error: no bundle written" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # neither the zip nor a partial one


def test_a_course_without_its_exercises_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(bundle, "_content_files", dict)
    with pytest.raises(BundleError, match="exercises"):
        build_bundle(tmp_path / "autograder.zip")
    assert list(tmp_path.iterdir()) == []
