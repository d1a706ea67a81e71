"""The documented installs, fresh: each grades (or checks) a solved notebook to full points.

- The instructor's non-editable `[grade]` install builds the Gradescope bundle; the bundle, installed
  as its setup.sh does (the wheel it carries, with its constraints.txt), runs its run_autograder,
  `autograd-course grade` (LMS downloads), and the shards workflow's `--shard K/N` then `--merge` commands.
- The learner's core + `[lab]` (no papermill, no nbval) runs `start`, `check` and `progress`.

Each venv is seeded from the test environment (tests/fresh_venv.py): nothing is downloaded.
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
import zipfile
from pathlib import Path

import nbformat
import pytest
from fresh_venv import PROJECT, FreshVenv, build_wheel, make_venv
from solved import solved_for
from test_install import _solve

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
SOLVED = next((ROOT / "solutions").glob("A_*.ipynb"))


def _cli(venv: FreshVenv, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(venv.root / "bin" / "autograd-course"), *args],
        cwd=cwd,
        env=venv.env(cwd),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _installed_course(venv: FreshVenv, cwd: Path) -> Path:
    """Where the venv imports the course from (asserting it is not a checkout)."""
    done = subprocess.run(
        [str(venv.python), "-c", "import autograd_course; print(autograd_course.__file__)"],
        cwd=cwd,
        env=venv.env(cwd),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return Path(done.stdout.strip())


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The course's wheel, built once for the instructor's and the learner's installs."""
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def autograder(tmp_path_factory, wheel) -> Path:
    """A Gradescope root: the bundle built by a non-editable `[grade]` install, unpacked in source/,
    then installed into venv/ with the command setup.sh runs (offline here)."""
    tmp = tmp_path_factory.mktemp("instructor")
    instructor = make_venv(tmp / "venv", [f"{PROJECT}[grade]"])
    for args in (
        ("install", "--no-index", f"{wheel}[grade]"),
        ("install", "--no-index", "--no-deps", "--force-reinstall", str(wheel)),
    ):
        done = instructor.pip(*args)
        assert done.returncode == 0, done.stdout + done.stderr
    assert _installed_course(instructor, tmp).is_relative_to(instructor.site)
    root = tmp_path_factory.mktemp("autograder")
    built = _cli(instructor, tmp, "gradescope", "--out", str(root / "autograder.zip"))
    assert built.returncode == 0, built.stdout + built.stderr
    with zipfile.ZipFile(root / "autograder.zip") as zf:
        zf.extractall(root / "source")
    # setup.sh's install line, pointed at this fake root and the seeded packages (no index)
    setup = (root / "source" / "setup.sh").read_text()
    (target,) = re.findall(r'-c /autograder/source/constraints.txt "/autograder/source/([^"]+)"', setup)
    venv = make_venv(root / "venv", [f"{PROJECT}[grade]"])
    constraints = str(root / "source" / "constraints.txt")
    done = venv.pip("install", "--no-index", "-c", constraints, str(root / "source" / target))
    assert done.returncode == 0, done.stdout + done.stderr
    assert _installed_course(venv, root).is_relative_to(venv.site)
    assert "papermill" not in venv.versions() and "nbval" not in venv.versions()
    return root


def test_the_gradescope_bundle_grades_a_solved_notebook_to_full_points(autograder):
    (autograder / "submission").mkdir()
    nbformat.write(solved_for("s1", "A"), autograder / "submission" / "A.ipynb")  # graded as sid s1
    meta = {"users": [{"sid": "s1", "email": "s1@example.org"}]}
    (autograder / "submission_metadata.json").write_text(json.dumps(meta))
    script = autograder / "source" / "run_autograder"
    done = subprocess.run(
        ["bash", str(script)],
        env={**FreshVenv(autograder / "venv").env(autograder), "AUTOGRADER_ROOT": str(autograder)},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads((autograder / "results" / "results.json").read_text())
    assert data["score"] == sum(t["max_score"] for t in data["tests"]) == 6, data


def test_the_shards_workflow_gives_full_points(autograder, tmp_path):
    """grade-shards.yml's commands in the installed bundle: one shard per runner, then one merge (a plain
    `grade` in this install is the LMS test's)."""
    venv = FreshVenv(autograder / "venv")
    subs = tmp_path / "submissions"
    (subs / "alice").mkdir(parents=True)
    nbformat.write(solved_for("alice", "A"), subs / "alice" / "A.ipynb")
    for k in (1, 2):
        shard = _cli(
            venv, tmp_path, "grade", str(subs), "--out", str(tmp_path / f"s{k}"), "--shard", f"{k}/2"
        )
        assert shard.returncode == 0, shard.stderr[-3000:]
    merged = _cli(venv, tmp_path, "grade", "--merge", "s1", "s2", "--out", str(tmp_path / "merged"))
    assert merged.returncode == 0, merged.stderr[-3000:]
    rows = {r["id"]: r for r in _csv(tmp_path / "merged" / "grades.csv")}
    assert rows["alice"]["A"] == rows["alice"]["total"] == "6", rows


def _csv(path: Path) -> list[dict]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def test_a_learner_install_without_papermill_or_nbval_starts_checks_and_shows_progress(wheel, tmp_path):
    venv = make_venv(tmp_path / "lab", [f"{PROJECT}[lab]"])
    done = venv.pip("install", "--no-index", f"{wheel}[lab]")
    assert done.returncode == 0, done.stdout + done.stderr
    # pip may take a checkout's build metadata on PYTHONPATH for an installed course: install it for sure
    done = venv.pip("install", "--no-index", "--no-deps", "--force-reinstall", str(wheel))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "papermill" not in venv.versions() and "nbval" not in venv.versions()
    assert _cli(venv, tmp_path, "start").returncode == 0
    exercise = next((tmp_path / "my-work").glob("A_*.ipynb"))
    _solve(exercise, SOLVED)  # no --seed: the default draw, whose answers the solution holds
    checked = _cli(venv, tmp_path, "check", str(exercise))
    assert checked.returncode == 0 and checked.stdout.count("passed") == 2, checked.stdout + checked.stderr
    progress = _cli(venv, tmp_path, "progress")
    line = next(x for x in progress.stdout.splitlines() if x.split()[:1] == ["A"])
    assert progress.returncode == 0 and line.endswith("done"), progress.stdout + progress.stderr


def test_lms_downloads_grade_to_full_points_in_the_non_editable_install(autograder, tmp_path):
    """A Canvas flat download with a roster of SIS ids, and a Moodle download with a roster claiming its
    folders, graded by the non-editable [grade] install: each learner's own variant, full points."""
    venv = FreshVenv(autograder / "venv")
    canvas = tmp_path / "canvas"
    canvas.mkdir()
    nbformat.write(solved_for("s1", "A"), canvas / "smithjane_2001_998877_A_detached_output.ipynb")
    nbformat.write(solved_for("s2", "A"), canvas / "ngbob_2002_998879_A_detached_output.ipynb")
    roster = tmp_path / "canvas.csv"
    roster.write_text("id,name,files,canvas_id\ns1,Jane Smith,,\ns2,Bob Ng,,2002\n")
    done = _cli(venv, tmp_path, "grade", str(canvas), "--roster", str(roster), "--out", str(tmp_path / "c"))
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {r["id"]: r for r in _csv(tmp_path / "c" / "grades.csv")}
    assert rows["s1"]["A"] == rows["s2"]["A"] == "6", rows
    sis = {r["SIS User ID"]: r for r in _csv(tmp_path / "c" / "canvas.csv")[1:] if r.get("SIS User ID")}
    assert set(sis) == {"s1", "s2"}
    moodle = tmp_path / "moodle"
    for name, learner, number in (("Jane Smith", "m1", 31), ("Bob Ng", "m2", 32)):
        folder = moodle / f"{name}_{number}_assignsubmission_file_"
        folder.mkdir(parents=True)
        nbformat.write(solved_for(learner, "A"), folder / "A.ipynb")
    roster = tmp_path / "moodle.csv"
    roster.write_text(
        "id,name,files\nm1,Jane Smith,Jane Smith_31_assignsubmission_file_\n"
        "m2,Bob Ng,Bob Ng_32_assignsubmission_file_\n"
    )
    done = _cli(venv, tmp_path, "grade", str(moodle), "--roster", str(roster), "--out", str(tmp_path / "m"))
    assert done.returncode == 0, done.stderr[-3000:]
    grades = {row["ID number"]: row["Autograd challenge"] for row in _csv(tmp_path / "m" / "moodle.csv")}
    assert grades == {"m1": "6", "m2": "6"}
