"""The setup cell at the top of every lesson, solution and exercise notebook.

On Colab or Kaggle the cell installs the course at this release (keeping the platform's torch,
ipykernel and ipywidgets) and calls `autograd_course.hosted.prepare`; anywhere else it does nothing
and prints nothing, so stored outputs and strict nbval are unchanged.

    autograd-course setup-cell --write [NOTEBOOK ...]   # default: notebooks/ and solutions/
    autograd-course setup-cell --check                  # exit 1 if a copy is stale

exercises/ get the cell from their solution: run `autograd-course generate` after.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import nbformat

from autograd_course.course import content_dir, course_notebooks, exercise_notebooks
from autograd_course.repository import DIST, course_version, repo_parts, repository

__all__ = [
    "CELL_ID",
    "DIST",
    "METADATA",
    "TAG",
    "apply",
    "cell_source",
    "default_notebooks",
    "install_target",
    "repository",
    "stale_notebooks",
]

TAG = "setup"
CELL_ID = "course-setup"
# Collapsed where the learner opens it: JupyterLab hides the source, Colab shows the cell as a form
# (its `# @title` line); no execution count, so no stale `[1]:` sits beside a cell that never ran locally.
METADATA = {"tags": [TAG], "jupyter": {"source_hidden": True}, "cellView": "form"}

_HEAD = """\
# @title Setup for Colab and Kaggle: installs this course there; on your own machine it does nothing
import os
import sys

ON_COLAB = "google.colab" in sys.modules or "COLAB_RELEASE_TAG" in os.environ
if ON_COLAB or "KAGGLE_KERNEL_RUN_TYPE" in os.environ:
"""
_INSTALL = """\
    import subprocess
    from importlib.metadata import PackageNotFoundError, version

    keep = []  # the platform's own torch and Jupyter packages stay exactly as they are
    for name in ("torch", "ipykernel", "ipywidgets"):
        try:
            keep.append(f"{{name}}=={{version(name)}}")
        except PackageNotFoundError:
            pass
    course = {target}  # this release of the course
    pip = [sys.executable, "-m", "pip", "install", "-q"]
    if subprocess.run([*pip, course, *keep]).returncode != 0:  # the platform's torch is older than ours
        print("This platform's torch is older than the course is tested on; some outputs may differ.")
        subprocess.run([*pip, "--no-deps", course], check=True)
    from autograd_course.hosted import prepare

    prepare({notebook})"""
_MISSING = """\
    # This copy of the course named no repository to install from when this cell was written.
    raise RuntimeError(
        "This copy of the course has no published home, so it cannot install itself here. "
        "Ask whoever sent you this link for a link to the course's own repository."
    )"""


def install_target(repo: str | None = None, ref: str | None = None) -> str:
    """What pip installs on Colab: the repository at the release tag v<version>; "" without a repository."""
    repo = repo or repository()
    if not repo:
        return ""
    url, github = repo_parts(repo)
    clone = f"{url}.git" if github else repo.strip().rstrip("/")  # elsewhere the URL may not take a .git
    return f"{DIST} @ git+{clone}@{ref or 'v' + course_version()}"


def cell_source(notebook: str, repo: str | None = None, ref: str | None = None) -> str:
    """The setup cell's code for one notebook (its path relative to the course root)."""
    target = install_target(repo, ref)
    if not target:
        return _HEAD + _MISSING
    return _HEAD + _INSTALL.format(target=json.dumps(target), notebook=json.dumps(notebook))


def _relative(path: Path) -> str:
    path = path.resolve()
    for folder in ("notebooks", "exercises"):  # an exercise names itself, not the solution it is made from
        if path.parent == content_dir(folder).resolve():
            return f"{folder}/{path.name}"
    return f"solutions/{path.name}"


def _with_cell(nb: nbformat.NotebookNode, source: str) -> bool:
    """Put the setup cell first among the code cells (replacing an old copy); True if nb changed."""
    tagged = [c for c in nb.cells if c.cell_type == "code" and TAG in c.get("metadata", {}).get("tags", [])]
    if len(tagged) == 1 and _current(tagged[0], source):
        first_code = next(c for c in nb.cells if c.cell_type == "code")
        if first_code is tagged[0]:
            return False
    for cell in tagged:
        nb.cells.remove(cell)
    # The cell prints nothing off Colab and Kaggle, so it stores no output; executing the notebook
    # (as every stored notebook is) gives it its count.
    cell = nbformat.v4.new_code_cell(source, metadata=copy.deepcopy(METADATA), execution_count=None)
    cell.id = CELL_ID
    index = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"), len(nb.cells))
    nb.cells.insert(index, cell)
    return True


def _current(cell: nbformat.NotebookNode, source: str) -> bool:
    """The cell has this source, the collapsed metadata and no output."""
    return cell.source == source and not cell.outputs and cell.get("metadata", {}) == METADATA


def default_notebooks() -> list[Path]:
    """The notebooks that carry the cell in the source tree: every lesson and every solution."""
    return course_notebooks() + exercise_notebooks("solutions")


def apply(paths: list[Path], repo: str | None = None, ref: str | None = None) -> list[Path]:
    """Write the current setup cell into each notebook; returns the notebooks that changed."""
    changed = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        if _with_cell(nb, cell_source(_relative(path), repo, ref)):
            path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
            changed.append(path)
    return changed


def stale_notebooks(paths: list[Path], repo: str | None = None, ref: str | None = None) -> list[Path]:
    """The notebooks whose setup cell is missing, misplaced, has outputs or is out of date."""
    stale = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        if _with_cell(nb, cell_source(_relative(path), repo, ref)):
            stale.append(path)
    return stale
