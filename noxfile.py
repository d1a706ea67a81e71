"""The torch versions the course supports, each run: unit tests, strict nbval, a regression run; then compare.

One command each (see README, "Run the course headless"):

    nox -s torch-2.13.0      # the pinned torch (what .ci/run and the stored outputs use)
    nox -s torch-2.14.1      # the newest torch we claim
    nox -s compare           # drift between the two runs; fails when a notebook's status changed

Each torch session writes runs/torch-<version>/ (report.json, report.md, executed notebooks).
Arguments after `--` go to the unit-test pytest run, e.g. `nox -s torch-2.14.1 -- -k compare`.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import nox
from nox.command import CommandFailed

ROOT = Path(__file__).resolve().parent
# The oldest is the package's declared floor; the first is the pin in constraints.txt.
TORCH_VERSIONS = ("2.13.0", "2.14.1")
COMPARED = ("2.13.0", "2.14.1")  # run A, run B of the compare session
# torchvision builds that import beside a session's torch: the real-model tests use them where present
# (PyPI's torchvision does not load beside the CPU build of 2.13.0, so those tests skip there).
TORCHVISION = {"2.14.1": "0.29.1"}

# nox points a session's TMPDIR into .nox/, inside the checkout; a test's tmp_path there lies under the
# course root, where `autograd-course run` labels notebooks by their path in the course (two run tests
# then fail for a reason torch has nothing to do with). The tests get the system's temporary folder.
SYSTEM_TMP = tempfile.gettempdir()

nox.options.default_venv_backend = "venv"
nox.options.sessions = [f"torch-{v}" for v in TORCH_VERSIONS] + ["compare"]
nox.options.reuse_existing_virtualenvs = True


def run_folder(version: str) -> Path:
    """runs/torch-<version>/ of this checkout."""
    return ROOT / "runs" / f"torch-{version}"


def constraints_without_torch(session: nox.Session) -> Path:
    """constraints.txt without its torch pin, so the session's torch can be another version."""
    lines = (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if not line.split("==")[0].strip().lower().startswith("torch")]
    path = Path(session.create_tmp()) / "constraints-no-torch.txt"
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return path


def clear_previous_run(session: nox.Session, folder: Path) -> None:
    """Remove this session's previous run folder; refuse a folder that is not a finished run."""
    if not folder.exists():
        return
    if not (folder / "report.json").is_file():
        session.error(f"{folder} exists and is not a finished run (no report.json); move it away first")
    shutil.rmtree(folder)


def torch_session(version: str) -> None:
    """Register the session `torch-<version>`."""

    @nox.session(name=f"torch-{version}", tags=["torch"])
    def _session(session: nox.Session) -> None:
        vision = [f"torchvision=={TORCHVISION[version]}"] if version in TORCHVISION else []
        constraints = str(constraints_without_torch(session))
        session.install("-c", constraints, f"torch=={version}", *vision, "-e", ".[dev]")
        session.run("python", "-c", "import torch; print('torch', torch.__version__)")
        folder = run_folder(version)
        clear_previous_run(session, folder)
        steps = {
            # the tests folder only (the browser tests need Chromium; .ci/run covers them)
            "unit tests": [
                "python", "-m", "pytest", "-n", "2", "-q", "tests", "-m", "not browser",
                *session.posargs,
            ],
            "strict nbval": ["python", "-m", "pytest", "-n", "2", "-q", "notebooks", "solutions"],
            "autograd-course run": ["autograd-course", "run", "--jobs", "2", "--output", str(folder)],
        }  # fmt: skip
        failed = []
        for name, command in steps.items():  # every step runs: a nightly job wants all three verdicts
            try:
                session.run(*command, env={"TMPDIR": SYSTEM_TMP})
            except CommandFailed:
                failed.append(name)
        if failed:
            session.error(f"torch {version}: {', '.join(failed)} failed (see above)")

    _session.__doc__ = (
        f"torch {version}: unit tests, strict nbval, `autograd-course run` -> runs/torch-{version}/"
    )


for _version in TORCH_VERSIONS:
    torch_session(_version)


@nox.session(name="compare", venv_backend="none")
def compare(session: nox.Session) -> None:
    """Compare the two torch runs into runs/compare-A-B.{md,json}; fail when a notebook's status changed."""
    a, b = (run_folder(v) for v in COMPARED)
    for version, folder in zip(COMPARED, (a, b)):
        if not (folder / "report.json").is_file():
            session.error(f"{folder} has no finished run; run `nox -s torch-{version}` first")
    out = ROOT / "runs" / f"compare-{COMPARED[0]}-{COMPARED[1]}"
    cli = [sys.executable, "-m", "autograd_course", "run", "--compare", str(a), str(b)]
    with open(f"{out}.md", "w", encoding="utf-8") as md:
        session.run(*cli, stdout=md)
    with open(f"{out}.json", "w", encoding="utf-8") as js:
        session.run(*cli, "--json", "--fail-on", "status", stdout=js)
    session.log(f"drift report: {out}.md and {out}.json")
