"""The setup cell: current in every notebook, silent locally, installs the course on Colab/Kaggle."""

from __future__ import annotations

import importlib.metadata as md
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from autograd_course import hosted
from autograd_course import repository as repository_module
from autograd_course.course import course_root, exercise_notebooks
from autograd_course.setup_cell import (
    TAG,
    apply,
    cell_source,
    default_notebooks,
    install_target,
    stale_notebooks,
)

REPO = "https://github.com/teacher/autograd-fork"


def test_every_lesson_solution_and_exercise_has_a_current_setup_cell():
    stale = stale_notebooks(default_notebooks() + exercise_notebooks())
    assert not stale, "run: autograd-course setup-cell --write, then autograd-course generate"


def test_locally_the_cell_prints_nothing_and_installs_nothing():
    env = {"PATH": "/usr/bin:/bin"}  # no COLAB_RELEASE_TAG, no KAGGLE_KERNEL_RUN_TYPE
    for source in (cell_source("notebooks/00_mental_model.ipynb"), cell_source("x.ipynb", repo=REPO)):
        done = subprocess.run(
            [sys.executable, "-c", source], env=env, capture_output=True, text=True, check=False
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def _hosted_run(source: str, monkeypatch, env: str, pip_fails: bool = False) -> list[list[str]]:
    """Execute the cell as on a hosted platform, recording pip calls instead of running them."""
    calls: list[list[str]] = []
    monkeypatch.setenv(env, "1")

    def run(cmd, **kw):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, returncode=int("--no-deps" not in cmd and pip_fails))

    monkeypatch.setattr(subprocess, "run", run)
    monkeypatch.setattr(hosted, "prepare", lambda notebook: calls.append(["prepare", notebook]))
    exec(compile(source, "<setup cell>", "exec"), {})
    return calls


@pytest.mark.parametrize("env", ["COLAB_RELEASE_TAG", "KAGGLE_KERNEL_RUN_TYPE"])
def test_hosted_the_cell_installs_this_release_and_keeps_the_platforms_torch(env, monkeypatch):
    source = cell_source("notebooks/05_grad_modes.ipynb", repo=REPO, ref="v9.9")
    pip, prepare = _hosted_run(source, monkeypatch, env)
    assert pip[:5] == [sys.executable, "-m", "pip", "install", "-q"]
    assert pip[5] == f"autograd-debugging-course @ git+{REPO}.git@v9.9"
    assert f"torch=={md.version('torch')}" in pip and f"ipykernel=={md.version('ipykernel')}" in pip
    assert prepare == ["prepare", "notebooks/05_grad_modes.ipynb"]


def test_hosted_the_cell_falls_back_to_no_deps_when_the_platforms_torch_is_too_old(monkeypatch, capsys):
    source = cell_source("notebooks/05_grad_modes.ipynb", repo=REPO, ref="v9.9")
    first, second, prepare = _hosted_run(source, monkeypatch, "COLAB_RELEASE_TAG", pip_fails=True)
    assert f"torch=={md.version('torch')}" in first and "--no-deps" not in first
    assert second[-2:] == ["--no-deps", f"autograd-debugging-course @ git+{REPO}.git@v9.9"]
    assert "older than the course is tested on" in capsys.readouterr().out
    assert prepare == ["prepare", "notebooks/05_grad_modes.ipynb"]


def test_the_install_target_adds_git_on_github_only():
    assert install_target(REPO + ".git/", "v1") == f"autograd-debugging-course @ git+{REPO}.git@v1"
    local = "file:///srv/course"  # a path is cloned as it is named
    assert install_target(local, "v1") == f"autograd-debugging-course @ git+{local}@v1"
    with pytest.raises(ValueError, match="expected the repository as a git URL"):
        install_target("teacher/fork", "v1")


def test_without_a_repository_the_hosted_cell_tells_the_learner_to_ask_the_sender(monkeypatch):
    monkeypatch.setattr(repository_module, "project_table", lambda: {"version": "0.1.0"})
    source = cell_source("notebooks/00_mental_model.ipynb")
    with pytest.raises(RuntimeError, match="no published home") as raised:
        _hosted_run(source, monkeypatch, "COLAB_RELEASE_TAG")
    message = str(raised.value)
    assert "ask whoever sent you this link" in message.lower()
    assert "autograd_course" not in message and "--write" not in message and "pyproject" not in message


def test_the_cell_is_written_collapsed(tmp_path):
    """Collapsed in JupyterLab and on Colab (a form under its title); executing the notebook counts it."""
    nb = nbformat.v4.new_notebook()
    old = nbformat.v4.new_code_cell("# an old setup cell", metadata={"tags": [TAG]}, execution_count=1)
    nb.cells = [old, nbformat.v4.new_code_cell("print(1)", execution_count=2)]
    path = tmp_path / "99_x.ipynb"
    nbformat.write(nb, path)
    assert apply([path], repo=REPO) == [path]
    cell = nbformat.read(path, as_version=4).cells[0]
    assert REPO in cell.source and cell.execution_count is None and not cell.outputs
    assert cell.metadata == {"tags": [TAG], "jupyter": {"source_hidden": True}, "cellView": "form"}
    assert cell.source.startswith("# @title ")  # the line Colab's form shows
    nb = nbformat.read(path, as_version=4)
    nb.cells[0].execution_count = 1  # the notebook executed: still current
    nbformat.write(nb, path)
    assert stale_notebooks([path], repo=REPO) == []
    nb.cells[0].metadata = {"tags": [TAG]}  # expanded again: stale
    nbformat.write(nb, path)
    assert stale_notebooks([path], repo=REPO) == [path]


def test_writer_puts_one_cell_first_among_code_cells_and_is_idempotent(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 99 · Title"),
        nbformat.v4.new_code_cell("seed: int = 0", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("print(1)"),
    ]
    path = tmp_path / "99_x.ipynb"
    nbformat.write(nb, path)
    assert apply([path], repo=REPO) == [path]
    assert apply([path], repo=REPO) == []  # already current: untouched
    written = nbformat.read(path, as_version=4)
    assert [c.cell_type for c in written.cells] == ["markdown", "code", "code", "code"]
    assert written.cells[1].metadata["tags"] == [TAG] and written.cells[2].metadata["tags"] == ["parameters"]
    written.cells[3].source = "print(2)"  # another cell changes; an older setup cell is replaced in place
    written.cells[1].source = "# an old setup cell"
    nbformat.write(written, path)
    assert stale_notebooks([path], repo=REPO) == [path]
    apply([path], repo=REPO)
    again = nbformat.read(path, as_version=4)
    assert [c.source for c in again.cells][2:] == ["seed: int = 0", "print(2)"]
    assert sum(TAG in c.metadata.get("tags", []) for c in again.cells) == 1


def test_prepare_switches_the_parameter_device_to_cuda_after_the_parameters_cell(capsys):
    handlers = []
    events = SimpleNamespace(
        register=lambda name, f: handlers.append(f), unregister=lambda n, f: handlers.remove(f)
    )
    ip = SimpleNamespace(user_ns={}, events=events)
    hosted._use_gpu(ip)
    handlers[0](None)  # a cell before the parameters cell: nothing to switch
    assert "device" not in ip.user_ns and handlers
    ip.user_ns["device"] = "cpu"
    handlers[0](None)
    assert ip.user_ns["device"] == "cuda" and not handlers and "GPU found" in capsys.readouterr().out


def test_mermaid_blocks_are_read_from_the_notebooks_markdown():
    blocks = hosted.mermaid_blocks("notebooks/00_mental_model.ipynb")
    assert blocks and all(b.lstrip().startswith(("flowchart", "graph")) for b in blocks)
    assert hosted.mermaid_blocks("notebooks/no_such.ipynb") == []
    assert Path(hosted.MERMAID_CDN).name.endswith(".mjs")


def test_an_exercise_setup_cell_names_the_exercise_it_is_in():
    """A learner's exercise (on Colab, an install without solutions/) names itself, never the solution."""
    for path in exercise_notebooks():
        nb = nbformat.read(path, as_version=4)
        setup = next(c for c in nb.cells if TAG in c.metadata.get("tags", []))
        assert f'prepare("exercises/{path.name}")' in setup.source and "solutions/" not in setup.source
        assert (course_root() / "exercises" / path.name).is_file()  # where prepare() reads its diagrams
