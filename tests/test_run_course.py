"""End to end: `autograd-course run` on real course notebooks (a lesson and a solution) passes them.

Whether every notebook runs is proven elsewhere: strict nbval (twice: both CPU corners, the portable
one in the Colab-pinned venv's kernel in CI, tests/test_colab_env.py) and JupyterLab (tests/browser). Here
`run` itself is under test, so two real notebooks are enough; the default run's order is checked
without executing anything.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograd_instructor.regression import collect_notebooks

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


def course() -> list[Path]:
    """The course as the README describes it: numbered lessons, then the solutions."""
    return sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")) + sorted(
        (ROOT / "solutions").glob("*.ipynb")
    )


def sample() -> list[Path]:
    """One lesson and one solution: the two kinds of notebook `run` executes by default."""
    return [course()[0], sorted((ROOT / "solutions").glob("*.ipynb"))[0]]


def digest(paths: list[Path]) -> dict[str, str]:
    return {p.relative_to(ROOT).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


@pytest.fixture(scope="module")
def course_run(tmp_path_factory):
    """One run of the sample with two jobs, shared by every assertion below."""
    notebooks = sample()
    before = digest(notebooks)
    out = tmp_path_factory.mktemp("course-run") / "run"
    done = subprocess.run(
        # Every course cell takes seconds; a 120 s cell limit turns a hang into a `timeout` verdict.
        [
            sys.executable,
            "-m",
            "autograd_course",
            "run",
            *(str(p) for p in notebooks),
            "--jobs",
            "2",
            "--timeout",
            "120",
            "--output",
            str(out),
        ],
        cwd=ROOT,
        env={**os.environ, "CI": "true", "AUTOGRAD_COURSE_ROOT": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=900,
    )
    report = json.loads((out / "report.json").read_text()) if (out / "report.json").is_file() else None
    return {"done": done, "out": out, "report": report, "notebooks": notebooks, "before": before}


def test_the_default_run_is_the_whole_course_in_order():
    assert collect_notebooks([]) == course()


def test_the_sampled_course_notebooks_passed(course_run):
    report, done = course_run["report"], course_run["done"]
    assert report is not None, done.stderr
    failures = [
        f"{r['path']}: {r['status']} at cell {r['cell_index']}: {r['error_name']}: {r['error_message']}"
        for r in report["results"]
        if r["status"] != "passed"
    ]
    assert failures == []
    assert done.returncode == 0, done.stderr


def test_the_run_reports_every_notebook_in_order_with_its_output(course_run):
    expected = [p.relative_to(ROOT).as_posix() for p in course_run["notebooks"]]
    assert [r["path"] for r in course_run["report"]["results"]] == expected
    for r in course_run["report"]["results"]:
        assert (course_run["out"] / r["output"]).is_file()


def test_the_course_sources_are_untouched(course_run):
    assert digest(course_run["notebooks"]) == course_run["before"]
