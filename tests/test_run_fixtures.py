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
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from autograd_course.cli import main
from autograd_course.regression import cell_text_outputs, load_report

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
    return json.loads((runs["a"] / "report.json").read_text())


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
    assert report_a["counts"] == {"passed": 2, "failed": 1, "timeout": 1, "error": 1}
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
    assert fails["error_message"] == "planted failure: answer is 41"
    last = executed(runs["a"], "fails.ipynb").cells[-1]
    assert last.outputs == []  # the run stopped at the failure
    assert "FAILED: tests/fixtures/run/fails.ipynb at cell 2: ValueError" in runs["cli_a"].stderr


def test_a_cell_timeout_is_reported_as_timeout(runs, report_a):
    sleeps = result(report_a, "sleeps.ipynb")
    assert (sleeps["cell_index"], sleeps["error_name"]) == (2, "CellTimeoutError")
    assert "4 seconds" in sleeps["error_message"]
    assert sleeps["duration_s"] < 60  # the 120 s sleep was cut off, not waited out


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
    import importlib.metadata

    assert report_a["torch_version"] == importlib.metadata.version("torch")
    assert (report_a["kernel"], report_a["jobs"], report_a["timeout_s"]) == ("python3", 2, 4.0)


def test_sources_are_never_modified(runs):
    assert runs["after"] == runs["before"]


def test_quiet_without_a_terminal(runs):
    assert "notebook/s" not in runs["cli_a"].stderr and "it/s" not in runs["cli_a"].stderr


def test_second_run_plants_a_failure(runs):
    report_b = load_report(runs["b"])
    assert [(Path(r.path).name, r.status) for r in report_b.results] == [
        ("passes.ipynb", "passed"),
        ("params.ipynb", "failed"),
    ]
    failed = report_b.result(f"{LABEL}/params.ipynb")
    # cell 4 of the source: papermill's injected-parameters cell is not counted
    assert (failed.cell_index, failed.error_name) == (4, "AssertionError")
    assert failed.parameters == {"seed": 4, "strict": True}
    assert runs["cli_b"].returncode == 1


@pytest.fixture(scope="module")
def comparison(runs):
    return autograd_course("run", "--compare", runs["a"], runs["b"])


def test_compare_lists_changed_cells_and_statuses(comparison):
    assert comparison.returncode == 0, comparison.stderr
    md = comparison.stdout
    status_section = md.split("## Status changes")[1].split("## Changed outputs")[0]
    assert "- tests/fixtures/run/params.ipynb: passed → failed" in status_section
    assert "- tests/fixtures/run/sleeps.ipynb: timeout → absent" in status_section
    assert "passes.ipynb" not in status_section
    outputs = md.split("## Changed outputs")[1]
    assert "### tests/fixtures/run/params.ipynb" in outputs
    assert "-[stdout] seed is 3\n+[stdout] seed is 4" in outputs
    assert "+AssertionError: strict mode fails on purpose" in outputs


def test_compare_ignores_addresses_and_timings(comparison):
    # passes.ipynb prints a fresh address and a timing each run; the nbval sanitizers blank both.
    assert "### tests/fixtures/run/passes.ipynb" not in comparison.stdout
    row = next(
        line for line in comparison.stdout.splitlines() if line.startswith("| tests/fixtures/run/passes")
    )
    assert row.endswith("| 0 |")


def test_compare_needs_two_finished_runs(tmp_path, runs):
    done = autograd_course("run", "--compare", runs["a"], tmp_path)
    assert done.returncode == 2
    assert "is not a finished run: expected" in done.stderr
