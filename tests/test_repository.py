"""One repository setting ([project.urls] Repository): change it, and every link the course makes follows."""

from __future__ import annotations

import re

import pytest

from autograd_course import repository as repository_module
from autograd_course.cli import main
from autograd_course.course import checkout
from autograd_course.repository import binder_link, colab_link, repository
from autograd_course.setup_cell import cell_source

FORK = "https://github.com/teacher/autograd-fork"


@pytest.fixture
def fork_setting(monkeypatch):
    """pyproject.toml as a fork would have it: the same project, another Repository."""
    monkeypatch.setattr(
        repository_module, "project_table", lambda: {"version": "3.1.4", "urls": {"Repository": FORK + "/"}}
    )
    return FORK


def test_the_setting_is_read_from_pyproject(fork_setting):
    assert repository() == fork_setting


def test_the_setup_cell_installs_from_the_setting(fork_setting):
    source = cell_source("notebooks/00_mental_model.ipynb")
    assert f'"autograd-debugging-course @ git+{fork_setting}.git@v3.1.4"' in source


def test_links_default_to_the_setting(fork_setting, capsys):
    assert main(["links"]) == 0
    out, err = capsys.readouterr()
    urls = re.findall(r"https://\S+", out)
    assert urls and all("teacher/autograd-fork" in url for url in urls)
    assert err == ""


def test_links_with_another_repo_warn_that_the_setup_cells_install_from_the_setting(fork_setting, capsys):
    assert main(["links", "--repo", "https://github.com/other/course"]) == 0
    out, err = capsys.readouterr()
    assert "other/course" in out and f"install the course from {fork_setting}" in err


def test_links_without_a_setting_or_repo_are_refused(monkeypatch, capsys):
    monkeypatch.setattr(repository_module, "project_table", lambda: {"version": "0.1.0"})
    assert main(["links"]) == 2
    assert "set [project.urls] Repository" in capsys.readouterr().err


def test_links_with_repo_but_no_setting_warn_that_colab_cannot_install(monkeypatch, capsys):
    monkeypatch.setattr(repository_module, "project_table", lambda: {"version": "0.1.0"})
    assert main(["links", "--repo", FORK]) == 0
    assert "setup cells cannot install" in capsys.readouterr().err


def test_launch_links_per_platform():
    path = "notebooks/03_backward_twice.ipynb"
    assert (
        colab_link(FORK, "v1", path)
        == f"https://colab.research.google.com/github/teacher/autograd-fork/blob/v1/{path}"
    )
    assert binder_link(FORK, "v1", path) == (
        "https://mybinder.org/v2/gh/teacher/autograd-fork/v1?labpath=notebooks%2F03_backward_twice.ipynb"
    )
    assert colab_link("https://gitlab.example.org/g/course", "main", path) == ""
    assert binder_link("file:///srv/course.git", "main", path) == ""


def test_the_readme_install_line_follows_the_setting():
    root = checkout()
    if root is None:
        pytest.skip("needs the checkout's README")
    readme = (root / "README.md").read_text(encoding="utf-8")
    installs = re.findall(r"pip install \"autograd-debugging-course\[lab\] @ git\+(\S+)\"", readme)
    assert installs == [repository()]
