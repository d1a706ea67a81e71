"""`autograd-course run` on fixture notebooks: every status, typed and undeclared parameters, --compare.

Two runs are shared by every test in the module (kernels are the expensive part):
run A runs all fixtures; run B reruns two of them with a different seed and strict mode,
which plants an output change and a status change for --compare to find.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from autograd_course.cli import main
from autograd_instructor.regression import cell_text_outputs, load_report

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "run"
LABEL = "tests/fixtures/run"
PARAMS_A = ["-p", "seed", "3", "-p", "version", "2.10", "-p", "device", "cuda", "-p", "ratio", "0.5"]
PARAMS_A += ["-p", "unknown", "1"]


@dataclass
class Cli:
    """One finished `autograd-course` invocation."""

    returncode: int
    stdout: str
    stderr: str


def autograd_course(*args: str | Path) -> Cli:
    """Run the CLI in this process (imports are paid once), capturing what it prints."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return Cli(code, out.getvalue(), err.getvalue())


def hashes(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Run A (all fixtures) and run B (passes + params, seed 4, strict), source hashes around them."""
    before = hashes(FIXTURES)
    base = tmp_path_factory.mktemp("runs")
    run_a, run_b = base / "a", base / "b"
    cli_a = autograd_course("run", FIXTURES, "-o", run_a, "--jobs", "2", "--timeout", "4", *PARAMS_A)
    cli_b = autograd_course(
        "run", FIXTURES / "passes.ipynb", FIXTURES / "params.ipynb", "-o", run_b,
        "-p", "seed", "4", "-p", "strict", "yes", "--timeout", "4", "--jobs", "2",
    )  # fmt: skip
    return {
        "a": run_a,
        "b": run_b,
        "cli_a": cli_a,
        "cli_b": cli_b,
        "before": before,
        "after": hashes(FIXTURES),
    }


@pytest.fixture(scope="module")
def report_a(runs):
    return {**json.loads((runs["a"] / "report.json").read_text()), "_folder": str(runs["a"])}


def result(report: dict, name: str) -> dict:
    (found,) = [r for r in report["results"] if r["path"] == f"{LABEL}/{name}"]
    return found


def executed(run: Path, name: str):
    return nbformat.read(run / LABEL / name, as_version=4)


def test_every_fixture_is_reported_in_folder_order_with_its_status(runs, report_a):
    statuses = {Path(r["path"]).name: r["status"] for r in report_a["results"]}
    assert list(statuses) == ["dies.ipynb", "fails.ipynb", "params.ipynb", "passes.ipynb", "sleeps.ipynb"]
    assert statuses == {
        "dies.ipynb": "error",
        "fails.ipynb": "failed",
        "params.ipynb": "passed",
        "passes.ipynb": "passed",
        "sleeps.ipynb": "timeout",
    }
    assert report_a["counts"] == {"passed": 2, "failed": 1, "timeout": 1, "error": 1, "stall": 0}
    assert runs["cli_a"].returncode == 1, runs["cli_a"].stderr


def test_a_passing_notebook_runs_in_its_own_folder(runs, report_a):
    passes = result(report_a, "passes.ipynb")
    assert passes["cell_index"] is None and passes["error_name"] is None
    assert passes["duration_s"] > 0
    first_code = next(c for c in executed(runs["a"], "passes.ipynb").cells if c.cell_type == "code")
    assert cell_text_outputs(first_code) == "[stdout] True"  # Path('passes.ipynb').is_file() in the kernel


def test_a_failing_cell_is_located_and_named(runs, report_a):
    fails = result(report_a, "fails.ipynb")
    assert (fails["cell_index"], fails["error_name"]) == (2, "ValueError")
    assert fails["code_cell"] == 1  # nbval's Cell 1: the markdown cell above is not counted
    assert fails["error_message"] == "planted failure: answer is 41"
    last = executed(runs["a"], "fails.ipynb").cells[-1]
    assert last.outputs == []  # the run stopped at the failure
    assert (
        "FAILED: tests/fixtures/run/fails.ipynb at code cell 1 (nbval ::Cell 1): ValueError"
        in runs["cli_a"].stderr
    )


def test_a_cell_timeout_is_reported_as_timeout(runs, report_a):
    sleeps = result(report_a, "sleeps.ipynb")
    assert (sleeps["cell_index"], sleeps["error_name"]) == (2, "CellTimeoutError")
    assert "4 seconds" in sleeps["error_message"]
    assert executed(runs["a"], "sleeps.ipynb").cells[-1].outputs == []  # cut off, nothing after it ran


def test_a_dead_kernel_is_reported_as_error(runs, report_a):
    dies = result(report_a, "dies.ipynb")
    assert (dies["cell_index"], dies["error_name"]) == (2, "DeadKernelError")
    assert (runs["a"] / dies["kernel_log"]).is_file()


def test_parameters_arrive_with_their_declared_types(runs, report_a):
    params = result(report_a, "params.ipynb")
    assert params["parameters"] == {"seed": 3, "version": "2.10", "device": "cuda", "ratio": 0.5}
    printed = cell_text_outputs(executed(runs["a"], "params.ipynb").cells[3])
    assert printed == "[stdout] " + "\n".join(
        [
            "seed = 3 (int)",
            "device = 'cuda' (str)",
            "version = '2.10' (str)",
            "ratio = 0.5 (float)",
            "strict = False (bool)",
        ]
    )
    assert report_a["device"] == "cuda"
    assert report_a["parameters"]["version"] == "2.10"


def test_undeclared_parameters_are_reported_everywhere(runs, report_a):
    assert result(report_a, "params.ipynb")["undeclared_parameters"] == ["unknown"]
    assert result(report_a, "passes.ipynb")["undeclared_parameters"] == [
        "seed",
        "version",
        "device",
        "ratio",
        "unknown",
    ]
    assert "warning: tests/fixtures/run/params.ipynb does not declare unknown" in runs["cli_a"].stderr
    (md_row,) = [
        line for line in (runs["a"] / "report.md").read_text().splitlines() if "params.ipynb" in line
    ]
    assert md_row.startswith("| tests/fixtures/run/params.ipynb | passed | ")
    assert md_row.endswith(" | unknown |")


def test_report_json_loads_back(runs, report_a):
    loaded = load_report(runs["a"])
    assert loaded.counts() == report_a["counts"]
    assert [r.status for r in loaded.results] == [r["status"] for r in report_a["results"]]
    assert not loaded.passed


def test_report_records_the_environment(report_a):
    assert report_a["python_version"] == ".".join(map(str, sys.version_info[:3]))
    import torch

    env = report_a["environment"]
    assert report_a["torch_version"] == env["torch"] == torch.__version__  # with its build tag
    assert "+" in env["torch"] or env["cuda"] is None  # local builds (+cpu, +cu130) keep their tag
    assert env["cuda"] == torch.version.cuda and env["rocm"] == getattr(torch.version, "hip", None)
    assert env["cpu_capability"] == torch.backends.cpu.get_cpu_capability()
    assert env["threads"] == torch.get_num_threads()
    assert env["python"] == report_a["python_version"]
    assert env["device_name"] == env["cpu_name"] != ""  # -p device cuda, but no GPU here
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode == 0:
        assert env["course"].split("+modified.")[0] == head.stdout.strip()
    md = (Path(report_a["_folder"]) / "report.md").read_text()
    assert f"torch {env['torch']}; " in md and f"CPU capability {env['cpu_capability']}; " in md
    assert "on a machine that may be shared" in md
    assert (report_a["kernel"], report_a["jobs"], report_a["timeout_s"]) == ("python3", 2, 4.0)


def test_sources_are_never_modified(runs):
    assert runs["after"] == runs["before"]


def test_no_progress_bar_without_a_terminal(runs):
    assert "notebook/s" not in runs["cli_a"].stderr and "it/s" not in runs["cli_a"].stderr


def test_a_planted_bad_parameter_fails_at_its_cell_in_the_second_run(runs):
    report_b = load_report(runs["b"])
    assert [(Path(r.path).name, r.status) for r in report_b.results] == [
        ("passes.ipynb", "passed"),
        ("params.ipynb", "failed"),
    ]
    failed = report_b.result(f"{LABEL}/params.ipynb")
    # cell 4 of the source: papermill's injected-parameters cell is not counted
    assert (failed.cell_index, failed.error_name) == (4, "AssertionError")
    assert failed.code_cell == 3
    assert failed.parameters == {"seed": 4, "strict": True}
    assert runs["cli_b"].returncode == 1


@pytest.fixture(scope="module")
def comparison(runs):
    return autograd_course("run", "--compare", runs["a"], runs["b"])


def test_compare_lists_changed_cells_and_statuses(comparison):
    assert comparison.returncode == 0, comparison.stderr
    md = comparison.stdout
    status_section = md.split("## Status changes")[1].split("## Changed outputs")[0]
    assert "- tests/fixtures/run/params.ipynb: passed → failed at cell 3" in status_section
    assert "sleeps.ipynb" not in status_section and "passes.ipynb" not in status_section
    # run B ran two of the five notebooks: the other three are named once, not as status changes
    assert "Only in run A (3 notebooks, not compared; run B did not run them): " in md
    assert md.count("sleeps.ipynb") == 1
    outputs = md.split("## Changed outputs")[1]
    assert "### tests/fixtures/run/params.ipynb" in outputs
    assert "-[stdout] seed is 3\n+[stdout] seed is 4" in outputs
    assert "+AssertionError: strict mode fails on purpose" in outputs


def test_compare_ignores_addresses_and_timings(comparison):
    # passes.ipynb prints a fresh address and a timing each run; the nbval sanitizers blank both.
    assert "### tests/fixtures/run/passes.ipynb" not in comparison.stdout


def test_compare_needs_two_finished_runs(tmp_path, runs):
    done = autograd_course("run", "--compare", runs["a"], tmp_path)
    assert done.returncode == 2
    assert "is not a finished run: expected" in done.stderr


@pytest.fixture(scope="module")
def clean_runs(tmp_path_factory):
    """Two clean runs of the same notebooks on the same torch, default parameters."""
    base = tmp_path_factory.mktemp("clean")
    books = [FIXTURES / "passes.ipynb", FIXTURES / "params.ipynb"]
    for name in ("c1", "c2"):
        done = autograd_course("run", *books, "-o", base / name, "--jobs", "2", "--timeout", "60")
        assert done.returncode == 0, done.stderr
    return base / "c1", base / "c2"


def test_json_gate_passes_on_two_clean_runs_of_the_same_torch(clean_runs):
    done = autograd_course("run", "--compare", *clean_runs, "--json", "--fail-on", "status,output,duration")
    assert done.returncode == 0, done.stdout
    data = json.loads(done.stdout)
    assert data["changes"] == {"status": [], "output": [], "duration": [], "stall": []}
    assert data["environment"]["a"]["torch"] == data["environment"]["b"]["torch"]


def test_json_gate_fails_on_a_planted_change_for_the_chosen_kinds_only(clean_runs, runs):
    clean = clean_runs[0]
    for kinds in ("status", "output", "duration,output"):
        done = autograd_course("run", "--compare", clean, runs["b"], "--json", "--fail-on", kinds)
        assert done.returncode == 1, kinds
        assert "changes found:" in done.stderr
    assert (
        autograd_course("run", "--compare", clean, runs["b"], "--json", "--fail-on", "duration").returncode
        == 0
    )
    data = json.loads(autograd_course("run", "--compare", clean, runs["b"], "--json").stdout)
    assert data["changes"]["status"] == data["changes"]["output"] == [f"{LABEL}/params.ipynb"]
    params = next(d for d in data["notebooks"] if d["path"] == f"{LABEL}/params.ipynb")
    assert params["failed_cell"] == {"a": None, "b": 3}
    by_cell = {c["cell"]: c for c in params["changed_cells"]}
    assert by_cell[2]["source"] == "print(f'seed is {seed}')"
    assert "-[stdout] seed is 0\n+[stdout] seed is 4" in by_cell[2]["diff"]
    assert "+AssertionError: strict mode fails on purpose" in by_cell[3]["diff"]
