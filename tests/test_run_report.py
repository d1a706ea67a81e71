"""The run report: JSON that loads back, a Markdown table that survives any error text."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
from pathlib import Path

import pytest

from autograd_instructor.regression import (
    NotebookResult,
    RunReport,
    course_version,
    environment_line,
    load_report,
    probe_interpreter,
)


def make_report() -> RunReport:
    report = RunReport(
        parameters={"device": "cuda"},
        device="cuda",
        torch_version="2.13.0",
        python_version="3.11.7",
        kernel="python3",
        timeout_s=30,
        jobs=2,
        started="2026-01-01T00:00:00+00:00",
        duration_s=12.5,
    )
    report.results = [
        NotebookResult("notebooks/00_a.ipynb", "passed", 3.25),
        NotebookResult(
            "notebooks/01_b.ipynb",
            "failed",
            4.0,
            cell_index=7,
            code_cell=5,
            error_name="RuntimeError",
            error_message="a | b\nsecond line " + "x" * 300,
            undeclared_parameters=["lr"],
        ),
    ]
    return report


def test_markdown_has_one_row_per_notebook_with_pipes_escaped_and_long_errors_cut():
    rows = [line for line in make_report().to_markdown().splitlines() if line.startswith("| notebooks/")]
    assert len(rows) == 2
    assert rows[0] == "| notebooks/00_a.ipynb | passed | 3.2 |  |  |  |"
    failed = rows[1]
    assert failed.startswith(
        "| notebooks/01_b.ipynb | failed | 4.0 | 5 | RuntimeError: a \\| b second line x"
    )
    assert failed.endswith("… | lr |")
    assert len(failed) < 300


def test_report_round_trips_through_json(tmp_path):
    report = make_report()
    report.write(tmp_path)
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["counts"] == {"passed": 1, "failed": 1, "timeout": 0, "error": 0, "stall": 0}
    loaded = load_report(tmp_path)
    assert loaded == report
    assert repr(loaded) == "RunReport(2 notebooks: 1 passed, 1 failed, 12.5 s)"
    assert not loaded.passed


def test_an_unknown_status_is_refused():
    with pytest.raises(
        ValueError, match="status must be one of passed, failed, timeout, error, stall; got 'ok'"
    ):
        NotebookResult("x.ipynb", "ok", 1.0)


def test_a_folder_without_a_report_is_not_a_run(tmp_path):
    with pytest.raises(FileNotFoundError, match="is not a finished run"):
        load_report(tmp_path)


def test_a_report_of_another_version_is_refused(tmp_path):
    (tmp_path / "report.json").write_text(json.dumps({"report_version": 99, "results": []}))
    with pytest.raises(ValueError, match="report_version 99, expected 1 or 2"):
        load_report(tmp_path)


def test_the_course_version_is_the_commit_in_a_checkout_else_the_package_version(tmp_path):
    root = Path(__file__).resolve().parent.parent
    head = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode == 0:
        assert course_version(root).split("+modified.")[0] == head.stdout.strip()
    version = importlib.metadata.version("autograd-debugging-course")
    assert course_version(tmp_path) == f"package {version}"  # an installed course, no checkout


def test_an_interpreter_that_cannot_be_probed_leaves_the_environment_unrecorded(tmp_path):
    assert probe_interpreter(str(tmp_path / "no-python")) == {}
    assert environment_line({}).startswith("not recorded")


def test_two_differently_edited_copies_of_one_commit_record_different_versions(tmp_path):
    def git(*args, cwd):
        subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=60)

    origin = tmp_path / "origin"
    origin.mkdir()
    git("init", "-q", cwd=origin)
    (origin / "lesson.py").write_text("x = 1\n")
    git("add", "lesson.py", cwd=origin)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one", cwd=origin)
    versions = set()
    for edit in ("x = 2\n", "x = 3\n"):
        copy = tmp_path / f"copy{len(versions)}"
        git("clone", "-q", str(origin), str(copy), cwd=tmp_path)
        clean = course_version(copy)
        (copy / "lesson.py").write_text(edit)
        assert course_version(copy).startswith(clean + "+modified.")
        versions.add(course_version(copy))
    assert len(versions) == 2
