"""A non-editable install (wheel, and git+file://) works from a scratch folder and writes nothing
into the installed package; binder/ installs the same way. One venv per module, seeded cheaply."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from fresh_venv import PROJECT, FreshVenv, build_wheel, make_venv

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def venv(tmp_path_factory, wheel) -> FreshVenv:
    """A venv with the core and [run] requirements seeded; the course itself goes in per test."""
    seed = [f"{PROJECT}[run]", "setuptools"]  # setuptools: the git+ install builds without isolation
    env = make_venv(tmp_path_factory.mktemp("venv") / "v", seed)
    # Every requirement must be satisfied without an index: pip resolves, installs only the course.
    done = env.pip("install", "--no-index", f"{wheel}[run]")
    assert done.returncode == 0, done.stdout + done.stderr
    return env


def _package_files(venv: FreshVenv) -> dict[str, str]:
    """sha256 of every file the course installed (its RECORD), and of anything else now beside them."""
    found = {}
    for top in ("autograd_course", "helpers"):
        for path in sorted((venv.site / top).rglob("*")):
            if path.is_file():
                found[path.relative_to(venv.site).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def _run(venv: FreshVenv, cwd: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    cmd = [str(venv.root / "bin" / "autograd-course"), *args]
    return subprocess.run(
        cmd, cwd=cwd, env=venv.env(cwd.parent), capture_output=True, text=True, timeout=timeout, check=False
    )


def _solve(exercise: Path, solution: Path) -> None:
    """Put the solution's answer cells into the learner's copy, as a learner who solved it would."""
    nb, sol = json.loads(exercise.read_text()), json.loads(solution.read_text())

    def key(cell: dict) -> tuple | None:
        meta = cell["metadata"].get("autograd_course") or {}
        return (meta.get("part"), meta.get("role")) if meta.get("role") == "answer" else None

    answers = {key(c): c["source"] for c in sol["cells"] if key(c)}
    assert len(answers) == 2
    for cell in nb["cells"]:
        if key(cell):
            cell["source"] = answers[key(cell)]
    exercise.write_text(json.dumps(nb, indent=1))


def _installed(venv: FreshVenv, target: str, *options: str) -> None:
    done = venv.pip("install", "--no-index", "--no-deps", "--force-reinstall", *options, target)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (venv.site / "autograd_course" / "course.py").is_symlink()


def test_wheel_install_runs_the_course_from_a_scratch_folder(venv, wheel, tmp_path):
    _installed(venv, str(wheel))
    content = venv.site / "autograd_course" / "content"
    assert sorted(p.name for p in (content / "notebooks").glob("*.ipynb")) == sorted(
        p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")
    )
    before = _package_files(venv)
    scratch = tmp_path / "scratch"
    scratch.mkdir()

    started = _run(venv, scratch, "start")
    assert started.returncode == 0, started.stdout + started.stderr
    work = scratch / "my-work"
    assert sorted(p.name for p in (work / "lessons").glob("*.ipynb")) == sorted(
        p.name for p in (content / "notebooks").glob("*.ipynb")
    )
    exercises = sorted(p.name for p in (content / "exercises").glob("*.ipynb"))
    assert sorted(p.name for p in work.glob("*.ipynb")) == exercises

    progress = _run(venv, scratch, "progress")
    assert progress.returncode == 0 and "not checked yet" in progress.stdout, progress.stdout

    first = work / exercises[0]
    assert not (content / "solutions").exists()  # reference answers stay out of an installed course
    _solve(first, ROOT / "solutions" / exercises[0])
    checked = _run(venv, scratch, "check", str(first))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("passed") == 2, checked.stdout
    progress = _run(venv, scratch, "progress")
    line = next(x for x in progress.stdout.splitlines() if x.strip().startswith(exercises[0].split("_")[0]))
    assert line.endswith("done"), progress.stdout

    solution = subprocess.run(
        [str(venv.python), "-c", "from autograd_instructor.challenge import challenge; "
         "challenge('A', {}).part2.solution()"],
        cwd=work, env=venv.env(scratch), capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert solution.returncode == 0 and "def fixed_" in solution.stdout, solution.stderr

    reset = _run(venv, scratch, "reset", "a")
    assert reset.returncode == 0 and list((work / "backups").glob("A_*.ipynb")), reset.stdout
    assert first.read_bytes() == (content / "exercises" / exercises[0]).read_bytes()

    lesson = sorted((content / "notebooks").glob("*.ipynb"))[0]
    ran = _run(venv, scratch, "run", str(lesson))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    (report,) = (scratch / "runs").glob("*/report.json")
    assert [r["status"] for r in json.loads(report.read_text())["results"]] == ["passed"]

    assert _package_files(venv) == before, "a command wrote into the installed package"


def test_git_file_install_carries_the_content(venv, tmp_path):
    """pip's git+file:// install of the committed checkout: the same content, and start works."""
    clone = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=120)  # HEAD, committed
    _installed(venv, f"git+file://{clone}", "--no-build-isolation")
    content = venv.site / "autograd_course" / "content"
    assert not (content / "solutions").exists()
    for folder in ("notebooks", "exercises"):
        shipped = {p.name: p.read_bytes() for p in (content / folder).glob("*.ipynb")}
        assert shipped, folder
        assert shipped == {p.name: p.read_bytes() for p in (clone / folder).glob("*.ipynb")}, folder
    before = _package_files(venv)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    started = _run(venv, scratch, "start", "ws")
    assert started.returncode == 0 and (scratch / "ws" / "lessons").is_dir(), started.stdout
    assert _run(venv, scratch, "progress", "--dir", "ws").returncode == 0
    assert _package_files(venv) == before
    shutil.rmtree(clone)


def _binder_requirements() -> tuple[list[str], list[str]]:
    lines = [x.strip() for x in (ROOT / "binder" / "requirements.txt").read_text().splitlines()]
    lines = [x for x in lines if x and not x.startswith("#")]
    return [x for x in lines if x.startswith("-")], [x for x in lines if not x.startswith("-")]


def test_binder_requirements_install_with_cpu_torch_from_pytorchs_index(venv):
    options, requirements = _binder_requirements()
    assert "--index-url https://download.pytorch.org/whl/cpu" in options
    torch_pin = next(r for r in requirements if r.startswith("torch=="))
    frozen = next(x for x in (ROOT / "constraints.txt").read_text().splitlines() if x.startswith("torch=="))
    assert torch_pin == frozen.split("+")[0], "binder/ must run the torch the stored outputs were made with"
    # Here the local CPU wheel stands in for PyTorch's index: resolve and install without any index.
    done = venv.pip("install", "--no-index", *requirements)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.11"


def test_binder_post_build_and_start_scripts(tmp_path):
    post = (ROOT / "binder" / "postBuild").read_text()
    assert subprocess.run(["bash", "-n", str(ROOT / "binder" / "postBuild")], check=False).returncode == 0
    assert 'pip install --no-cache-dir ".[lab]"' in post  # not editable: a hub's home mounts over $HOME
    start = ROOT / "binder" / "start"
    show = ["bash", "-c", 'for d in ${JUPYTER_CONFIG_PATH//:/ }; do cat "$d/jupyter_server_config.py"; done']
    env = {"HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin", "TMPDIR": str(tmp_path)}
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "README.md").write_text("# course")
    for cwd, extra, expected in [
        (tmp_path / "repo", {}, 'c.ServerApp.default_url = "/lab/tree/README.md"\n'),  # Binder
        (tmp_path / "repo", {"JUPYTERHUB_DEFAULT_URL": "/lab"}, ""),  # the hub's default URL wins
        (tmp_path, {}, ""),  # a home without README.md: no dialog saying it cannot be opened
    ]:
        done = subprocess.run(
            [str(start), *show], cwd=cwd, env={**env, **extra}, capture_output=True, text=True, check=False
        )
        assert (done.returncode, done.stdout) == (0, expected), done.stderr
    assert not (tmp_path / "home").exists()  # nothing written into the learner's home
    assert (ROOT / "README.md").is_file()
