"""`autograd-course run`: course order, bad input refused before anything runs, progress only on a TTY."""

from __future__ import annotations

import hashlib
import json
import platform
import shutil
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograd_course.cli import main
from autograd_instructor.regression import (
    RunError,
    cell_text_outputs,
    collect_notebooks,
    load_report,
    progress_wanted,
)

FIXTURES = Path(__file__).parent / "fixtures" / "run"


def test_default_paths_are_notebooks_then_solutions_in_order(tmp_path, monkeypatch):
    for rel in [
        "notebooks/01_b.ipynb",
        "notebooks/00_a.ipynb",
        "notebooks/scratch.ipynb",
        "notebooks/README.md",
        "solutions/tinynet.ipynb",
        "solutions/00_setup.ipynb",
    ]:
        (tmp_path / rel).parent.mkdir(exist_ok=True)
        (tmp_path / rel).write_text("{}")
    monkeypatch.setenv("AUTOGRAD_COURSE_ROOT", str(tmp_path))
    found = [p.relative_to(tmp_path).as_posix() for p in collect_notebooks()]
    expected = [
        "notebooks/00_a.ipynb",
        "notebooks/01_b.ipynb",
        "solutions/00_setup.ipynb",
        "solutions/tinynet.ipynb",
    ]
    assert found == expected


def test_an_empty_course_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOGRAD_COURSE_ROOT", str(tmp_path))
    with pytest.raises(RunError, match="no notebooks found in"):
        collect_notebooks()


def test_given_paths_keep_their_order_and_folders_expand(tmp_path):
    found = collect_notebooks([FIXTURES / "passes.ipynb", FIXTURES, FIXTURES / "dies.ipynb"])
    assert [p.name for p in found] == [
        "passes.ipynb",
        "dies.ipynb",
        "fails.ipynb",
        "params.ipynb",
        "sleeps.ipynb",
    ]


def run(capsys, *args: str | Path) -> tuple[int, str]:
    try:
        code = main(["run", *map(str, args)])
    except SystemExit as exc:  # argparse rejects bad option values itself
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no/such.ipynb"], "no/such.ipynb: no such notebook or folder"),
        ([str(FIXTURES.parent.parent / "conftest.py")], "expected a .ipynb notebook or a folder of them"),
        ([str(FIXTURES / "params.ipynb"), "-p", "seed", "three"], "declares seed: int; got 'three'"),
        (
            [str(FIXTURES / "params.ipynb"), "-p", "seed", "1", "-p", "seed", "2"],
            "given more than once: seed",
        ),
        ([str(FIXTURES / "passes.ipynb"), "--kernel", "no-such-kernel"], "no such Jupyter kernel"),
        ([str(FIXTURES / "passes.ipynb"), "--jobs", "0"], "expected a whole number of at least 1; got 0"),
        ([str(FIXTURES / "passes.ipynb"), "--timeout", "-1"], "expected seconds as a positive number"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(capsys, tmp_path, args, message):
    out = tmp_path / "out"
    code, err = run(capsys, *args, "-o", out)
    assert code == 2
    assert message in err
    assert not out.exists()  # refused before anything was created


def test_an_unreadable_notebook_is_refused_before_anything_runs(capsys, tmp_path):
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{ not json")
    code, err = run(capsys, FIXTURES / "passes.ipynb", broken, "-o", tmp_path / "out")
    assert code == 2
    assert "broken.ipynb: not a readable notebook" in err
    assert not (tmp_path / "out").exists()


def test_an_existing_output_folder_is_never_reused(capsys, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("my notes")
    code, err = run(capsys, FIXTURES / "passes.ipynb", "-o", out)
    assert code == 2
    assert "already exists and is not an empty folder" in err
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    assert (out / "notes.txt").read_text() == "my notes"


def test_the_output_can_never_be_the_sources_folder(capsys, tmp_path):
    source = tmp_path / "course" / "passes.ipynb"
    source.parent.mkdir()
    shutil.copy(FIXTURES / "passes.ipynb", source)
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    code, err = run(capsys, source, "-o", source.parent)
    assert code == 2
    assert "would overwrite the source" in err
    assert hashlib.sha256(source.read_bytes()).hexdigest() == digest


def test_compare_takes_no_notebooks(capsys, tmp_path):
    code, err = run(capsys, FIXTURES / "passes.ipynb", "--compare", tmp_path, tmp_path)
    assert code == 2
    assert "--compare takes two run folders and no notebooks" in err


@pytest.mark.parametrize(
    ("tty", "ci", "wanted"),
    [
        (True, None, True),
        (True, "true", False),
        (True, "1", False),
        (True, "false", True),
        (False, None, False),
    ],
)
def test_progress_bar_only_on_a_terminal_outside_ci(monkeypatch, tty, ci, wanted):
    monkeypatch.setattr("sys.stderr.isatty", lambda: tty)
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    assert progress_wanted() is wanted


@pytest.mark.slow
def test_kernel_option_runs_the_notebook_in_that_kernel(capsys, tmp_path, monkeypatch):
    spec = tmp_path / "jupyter" / "kernels" / "course-probe"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "probe",
                "language": "python",
                "env": {"COURSE_PROBE_KERNEL": "yes"},
            }
        )
    )
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    notebook = tmp_path / "probe.ipynb"
    book = new_notebook(cells=[new_code_cell("import os\nprint(os.environ.get('COURSE_PROBE_KERNEL'))")])
    nbformat.write(book, notebook)
    code, err = run(capsys, notebook, "--kernel", "course-probe", "-o", tmp_path / "out")
    assert code == 0, err
    report = load_report(tmp_path / "out")
    assert report.kernel == "course-probe"
    assert report.python_version == platform.python_version()
    executed = nbformat.read(tmp_path / "out" / "probe.ipynb", as_version=4)
    assert cell_text_outputs(executed.cells[0]) == "[stdout] yes"
