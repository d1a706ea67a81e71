"""The core installs into an environment pinned like Colab's image without changing a pin, and every
lesson and solution runs there under papermill (ipykernel 6.17, ipywidgets 7.7, IPython 7.34)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from fresh_venv import build_wheel, make_venv

from autograd_course.course import course_notebooks, exercise_notebooks
from autograd_course.repository import course_version
from autograd_course.setup_cell import TAG, cell_source

# About 3 min of CPU and 2.3 min of wall time alone on the idle 2-core machine (2026-12-03): it runs
# where AUTOGRAD_COURSE_COLAB_ENV=1, which .ci/run sets; a quick local `pytest` skips it.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("AUTOGRAD_COURSE_COLAB_ENV") != "1",
        reason="the Colab-pinned environment takes minutes; set AUTOGRAD_COURSE_COLAB_ENV=1 to run it",
    ),
]

ROOT = Path(__file__).resolve().parent.parent
# Colab's Jupyter stack: google-colab's own pins (googlecolab/colabtools setup.py: ipykernel,
# ipython, notebook, tornado) and the image's (ipywidgets, jupyter-client, traitlets, numpy,
# matplotlib). Refresh from `!pip freeze` in a new Colab notebook. Torch is ours, standing in for
# Colab's CUDA build; the core must accept whatever torch the platform ships (>= the floor).
COLAB_PINS = {
    "ipykernel": "6.17.1",
    "ipython": "7.34.0",
    "notebook": "6.5.7",
    "tornado": "6.4.2",
    "ipywidgets": "7.7.1",
    "jupyter-client": "6.1.12",
    "traitlets": "5.7.1",
    "numpy": "2.0.2",
    "matplotlib": "3.10.0",
}

# papermill's command line, except that the kernel is killed at the end, as the course's own runs do
# (its command line stops it gracefully, about 2 s of waiting per notebook).
PAPERMILL_KILLING = (
    "import sys, papermill; "
    "papermill.execute_notebook(sys.argv[1], sys.argv[2], cwd=sys.argv[3], shutdown_kernel='immediate')"
)


def test_core_keeps_colabs_pins_and_runs_every_notebook(tmp_path):
    venv = make_venv(tmp_path / "colab", ["torch"])
    pinned = venv.pip("install", *(f"{name}=={version}" for name, version in COLAB_PINS.items()))
    assert pinned.returncode == 0, pinned.stdout + pinned.stderr
    before = venv.versions()
    wheel = build_wheel(tmp_path / "wheel")
    installed = venv.pip("install", str(wheel), "papermill")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    after = venv.versions()
    changed = {n: (before[n], after.get(n)) for n in [*COLAB_PINS, "torch"] if after.get(n) != before[n]}
    assert not changed, f"installing the course changed Colab's pins: {changed}"

    notebooks = course_notebooks() + exercise_notebooks("solutions")
    out = tmp_path / "out"
    out.mkdir()

    def execute(nb: Path) -> tuple[str, int, str]:
        cmd = [str(venv.python), "-c", PAPERMILL_KILLING, str(nb), str(out / nb.name), str(nb.parent)]
        done = subprocess.run(
            cmd, env=venv.env(tmp_path), capture_output=True, text=True, timeout=600, check=False
        )
        return nb.name, done.returncode, done.stderr[-2000:]

    with ThreadPoolExecutor(2) as pool:
        failed = [r for r in pool.map(execute, notebooks) if r[1] != 0]
    assert not failed, "\n\n".join(f"{name}: exit {rc}\n{err}" for name, rc, err in failed)


def _repository_of_this_checkout(path: Path) -> str:
    """A git repository holding this checkout's files (committed or not), tagged as this release."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    for rel in filter(None, listed):
        source = ROOT / rel
        if source.is_file():
            (path / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, path / rel)
    git = ["git", "-c", "user.name=course", "-c", "user.email=course@example.invalid", "-C", str(path)]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "release"]):
        subprocess.run([*git, *args], check=True, capture_output=True)
    subprocess.run([*git, "tag", f"v{course_version()}"], check=True, capture_output=True)
    return path.as_uri()


def test_on_colab_the_setup_cell_installs_the_course_from_its_repository_and_lesson_00_runs(tmp_path):
    """Colab's variables and pinned stack, a local git URL as the course's repository, lesson 00 from its
    first cell: the setup cell installs the course (keeping the pins) and the lesson runs to the end."""
    venv = make_venv(tmp_path / "colab", ["torch"])
    pins = [f"{name}=={version}" for name, version in COLAB_PINS.items()]
    ready = venv.pip("install", "pip", "papermill", *pins)  # Colab has pip, and its Jupyter stack
    assert ready.returncode == 0, ready.stdout + ready.stderr
    before = venv.versions()
    assert "autograd-debugging-course" not in before
    repo = _repository_of_this_checkout(tmp_path / "course")

    lesson = nbformat.read(ROOT / "notebooks" / "00_mental_model.ipynb", as_version=4)
    (setup,) = [c for c in lesson.cells if TAG in c.metadata.get("tags", [])]
    setup.source = cell_source("notebooks/00_mental_model.ipynb", repo=repo)
    work = tmp_path / "content"  # Colab's working folder: no course files beside the notebook
    work.mkdir()
    nbformat.write(lesson, work / "00_mental_model.ipynb")
    env = {**venv.env(tmp_path), "COLAB_RELEASE_TAG": "release-colab-test"}
    cmd = [str(venv.python), "-m", "papermill", "--cwd", str(work), "00_mental_model.ipynb", "out.ipynb"]
    done = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]

    ran = nbformat.read(work / "out.ipynb", as_version=4)
    (setup_out,) = [c for c in ran.cells if TAG in c.metadata.get("tags", [])]
    text = "".join(o.get("text", "") for o in setup_out.outputs)
    assert "Course ready (notebooks/00_mental_model.ipynb)" in text
    after = venv.versions()
    assert after["autograd-debugging-course"] == course_version()
    (origin,) = venv.site.glob("autograd_debugging_course-*.dist-info/direct_url.json")
    assert json.loads(origin.read_text())["url"] == repo  # installed from the course's repository
    changed = {n: (before[n], after.get(n)) for n in [*COLAB_PINS, "torch"] if after.get(n) != before[n]}
    assert not changed, f"the setup cell changed Colab's pins: {changed}"
