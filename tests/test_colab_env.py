"""The course on a Colab-pinned stack (ipykernel 6.17, ipywidgets 7.7, IPython 7.34): lesson 00's setup cell
installs it from its repository without changing a pin, and every lesson and solution, run by that
stack's kernel, holds its stored outputs under strict nbval in the portable CPU corner.

One venv and one execution of each notebook serve it all: the notebooks run where the setup cell
installed the course, as on Colab, and this run is also the suite's portable-corner nbval
(tests/strict_nbval.py; tests/test_nbval_portability.py runs that corner itself where this file is
skipped).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple

import nbformat
import pytest
from fresh_venv import FreshVenv, make_venv
from strict_nbval import child_environment, strict_nbval_failures

from autograd_course.repository import course_version
from autograd_course.setup_cell import TAG, cell_source
from autograd_instructor.regression import probe_interpreter

# Minutes of CPU on the 2-core machine: it runs where AUTOGRAD_COURSE_COLAB_ENV=1, which .ci/run sets;
# a quick local `pytest` skips it (and tests/test_nbval_portability.py checks the portable corner).
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

KERNEL = "colab-pinned"
SANITIZERS = (  # the suite's own rules, then tests/'s addition for IPython 7
    "autograd_instructor/regression/nbval_sanitize.cfg",
    "tests/nbval_sanitize_colab.cfg",
)


class Colab(NamedTuple):
    """The pinned venv, its scratch folder, and what pip listed in it before the course came."""

    venv: FreshVenv
    home: Path
    before: dict[str, str]


@pytest.fixture(scope="module")
def colab(tmp_path_factory: pytest.TempPathFactory) -> Colab:
    """A venv pinned like Colab's image, with pip and papermill (Colab has pip, and its Jupyter stack)."""
    home = tmp_path_factory.mktemp("colab")
    venv = make_venv(home / "venv", ["torch"])
    pins = [f"{name}=={version}" for name, version in COLAB_PINS.items()]
    ready = venv.pip("install", "pip", "papermill", *pins)
    assert ready.returncode == 0, ready.stdout + ready.stderr
    before = venv.versions()
    assert "autograd-debugging-course" not in before
    return Colab(venv, home, before)


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


@pytest.fixture(scope="module")
def setup_cell_run(colab: Colab) -> tuple[subprocess.CompletedProcess, Path]:
    """Colab's variables, a local git URL as the course's repository, lesson 00 run from its first cell
    with papermill: the setup cell installs the course into the pinned venv."""
    repo = _repository_of_this_checkout(colab.home / "course")
    lesson = nbformat.read(ROOT / "notebooks" / "00_mental_model.ipynb", as_version=4)
    (setup,) = [c for c in lesson.cells if TAG in c.metadata.get("tags", [])]
    setup.source = cell_source("notebooks/00_mental_model.ipynb", repo=repo)
    work = colab.home / "content"  # Colab's working folder: no course files beside the notebook
    work.mkdir()
    nbformat.write(lesson, work / "00_mental_model.ipynb")
    env = {**colab.venv.env(colab.home), "COLAB_RELEASE_TAG": "release-colab-test"}
    python = str(colab.venv.python)
    cmd = [python, "-m", "papermill", "--cwd", str(work), "00_mental_model.ipynb", "out.ipynb"]
    done = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=900, check=False)
    return done, work


def test_on_colab_the_setup_cell_installs_the_course_from_its_repository_keeping_the_pins(
    colab, setup_cell_run
):
    done, work = setup_cell_run
    assert done.returncode == 0, done.stderr[-3000:]
    ran = nbformat.read(work / "out.ipynb", as_version=4)
    (setup_out,) = [c for c in ran.cells if TAG in c.metadata.get("tags", [])]
    text = "".join(o.get("text", "") for o in setup_out.outputs)
    assert "Course ready (notebooks/00_mental_model.ipynb)" in text
    after = colab.venv.versions()
    assert after["autograd-debugging-course"] == course_version()
    (origin,) = colab.venv.site.glob("autograd_debugging_course-*.dist-info/direct_url.json")
    repo = (colab.home / "course").as_uri()
    assert json.loads(origin.read_text())["url"] == repo  # installed from the course's repository
    pinned = [*COLAB_PINS, "torch"]
    changed = {n: (colab.before[n], after.get(n)) for n in pinned if after.get(n) != colab.before[n]}
    assert not changed, f"installing the course changed Colab's pins: {changed}"


def test_every_notebook_holds_its_outputs_in_colabs_kernel_with_the_portable_cpu_corner(
    colab, setup_cell_run
):
    """Strict nbval, each notebook run by the pinned venv's kernel (where the setup cell installed the
    course) with ATEN_CPU_CAPABILITY=default and one thread."""
    assert setup_cell_run[0].returncode == 0, "the setup cell did not install the course (see the test above)"
    env = child_environment(colab.venv.env(colab.home))
    made = subprocess.run(
        [str(colab.venv.python), "-m", "ipykernel", "install", "--user", "--name", KERNEL],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    probed = probe_interpreter(str(colab.venv.python), extra_env=env)
    assert (probed["cpu_capability"], probed["threads"]) == ("DEFAULT", 1)

    sanitize = colab.home / "nbval_sanitize.cfg"  # the suite's sanitizers, and IPython 7's cell frames
    sanitize.write_text("\n".join((ROOT / name).read_text() for name in SANITIZERS))
    # pyproject.toml's addopts, with this kernel instead of the current environment's
    own = [f"--nbval-sanitize-with={sanitize}", f"--nbval-kernel-name={KERNEL}", "--dist=loadfile"]
    failed = strict_nbval_failures(env, "-o", "addopts=", "--nbval", "-p", "no:cacheprovider", *own)
    assert not failed, (
        "in the Colab-pinned kernel with ATEN_CPU_CAPABILITY=default and 1 thread, stored outputs differ or "
        "a notebook fails:\n" + failed
    )
