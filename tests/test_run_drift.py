"""`run --compare` on hand-built run folders (no kernels): numbering, sources, diffs, gates, durations."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from autograd_course.cli import main
from autograd_instructor.regression import (
    NotebookResult,
    RunReport,
    check_durations,
    compare_runs,
    environment_line,
    load_report,
    parse_change_kinds,
)

ENV = {
    "python": "3.11.7",
    "torch": "2.13.0+cpu",
    "cuda": None,
    "cudnn": None,
    "rocm": None,
    "cpu_name": "Some CPU",
    "device_name": "Some CPU",
    "cpu_capability": "AVX2",
    "threads": 2,
    "gpu_name": None,
    "course": "0123abcd",
}


def code(source: str, text: str | None, count: int | None) -> nbformat.NotebookNode:
    cell = new_code_cell(source, execution_count=count)
    if text is not None:
        cell.outputs = [new_output("stream", name="stdout", text=text)]
    return cell


def lesson(prints: dict[int, str], ran: int = 99) -> nbformat.NotebookNode:
    """A markdown cell, then 4 code cells (nbval Cell 0-3) between markdown; cells after `ran` unrun."""
    texts = {0: "setup\n", 1: "loss 0.4200\n", 2: "tensor([1., 2.])\n", 3: "done\n", **prints}
    cells = [new_markdown_cell("# A lesson")]
    for n in range(4):
        source = f"# cell {n}\n" + "\n".join(f"x{i} = {i}" for i in range(n * 4)) + f"\nprint('{n}')"
        cells.append(code(source, texts[n] if n <= ran else None, n + 1 if n <= ran else None))
        cells.append(new_markdown_cell(f"Between code cells {n} and {n + 1}."))
    return new_notebook(cells=cells)


def make_run(
    folder: Path,
    notebooks: dict[str, nbformat.NotebookNode],
    statuses: dict[str, tuple[str, int | None]] | None = None,
    durations: dict[str, float] | None = None,
    env: dict | None = None,
) -> Path:
    """A finished run folder: executed notebooks and report.json, as `autograd-course run` writes them."""
    results = []
    for name, nb in notebooks.items():
        path = folder / "notebooks" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, path)
        status, cell = (statuses or {}).get(name, ("passed", None))
        results.append(
            NotebookResult(
                f"notebooks/{name}",
                status,
                (durations or {}).get(name, 10.0),
                output=f"notebooks/{name}",
                code_cell=cell,
                error_name=None if cell is None else "AssertionError",
            )
        )
    report = RunReport({}, None, "2.13.0+cpu", "3.11.7", "python3", 300, 1, "2026-01-01T00:00:00+00:00")
    report.results, report.environment = results, dict(env or ENV)
    report.write(folder)
    return folder


NAMES = [f"{n:02d}_lesson.ipynb" for n in range(6)]


@pytest.fixture
def clean(tmp_path):
    """Two runs of six notebooks with identical outputs."""
    return (
        make_run(tmp_path / "a", {n: lesson({}) for n in NAMES}),
        make_run(tmp_path / "b", {n: lesson({}) for n in NAMES}),
    )


def cli(capsys, *args) -> tuple[int, str, str]:
    code = main(["run", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_two_clean_runs_pass_every_gate(capsys, clean):
    code, out, _ = cli(capsys, "--compare", *clean, "--json", "--fail-on", "status,output,duration")
    data = json.loads(out)
    assert code == 0
    assert data["changes"] == {"status": [], "output": [], "duration": [], "stall": []}
    assert data["failed"] is False and data["fail_on"] == ["status", "output", "duration"]


def test_an_output_change_fails_only_the_output_gate(capsys, tmp_path, clean):
    a, _ = clean
    b = make_run(
        tmp_path / "planted", {n: lesson({1: "loss 0.4300\n"} if n == NAMES[2] else {}) for n in NAMES}
    )
    assert cli(capsys, "--compare", a, b, "--json", "--fail-on", "status")[0] == 0
    assert cli(capsys, "--compare", a, b, "--json", "--fail-on", "duration")[0] == 0
    code, out, err = cli(capsys, "--compare", a, b, "--json", "--fail-on", "status,output")
    assert code == 1
    assert "changes found:\n  output: notebooks/02_lesson.ipynb (cells 1)" in err
    data = json.loads(out)
    assert data["changes"]["output"] == ["notebooks/02_lesson.ipynb"]
    (changed,) = data["notebooks"][2]["changed_cells"]
    # nbval numbering: the second code cell is Cell 1 however many markdown cells precede it
    assert (changed["cell"], changed["execution_count"]) == (1, 2)
    assert changed["source"] == "# cell 1\nx0 = 0\nx1 = 1\nx2 = 2\nx3 = 3\nprint('1')"
    assert "-[stdout] loss 0.4200\n+[stdout] loss 0.4300" in changed["diff"]
    assert "nbval" in data["cell_numbering"] and "markdown cells are not counted" in data["cell_numbering"]


def test_markdown_shows_the_changed_cell_with_trimmed_source_and_diff(capsys, tmp_path, clean):
    a, _ = clean
    b = make_run(tmp_path / "planted", {n: lesson({3: "finished\n"}) for n in NAMES[:1]} | {
        n: lesson({}) for n in NAMES[1:]})  # fmt: skip
    code, md, _ = cli(capsys, "--compare", a, b)
    assert code == 0  # no --fail-on: a report, not a gate
    section = md.split("### notebooks/00_lesson.ipynb")[1]
    # 14 source lines: the first 3 and the last 3 (what the cell prints) are shown
    source = "# cell 3\nx0 = 0\nx1 = 1\n# … 8 more lines\nx10 = 10\nx11 = 11\nprint('3')"
    assert section.startswith(f"\n\nCell 3 (`In [4]`):\n\n```python\n{source}\n```")
    assert "```diff\n--- run A\n+++ run B\n@@ -1 +1 @@\n-[stdout] done\n+[stdout] finished\n```" in section
    assert "Numbering: cell N is the Nth code cell from 0, as nbval names it" in md


def test_a_status_change_names_the_failing_cell_and_unrun_cells_once(capsys, tmp_path, clean):
    a, _ = clean
    books = {n: lesson({}) for n in NAMES}
    books[NAMES[4]] = lesson({}, ran=1)  # stopped in code cell 1: cells 2 and 3 never ran
    b = make_run(tmp_path / "failed", books, statuses={NAMES[4]: ("failed", 1)})
    assert cli(capsys, "--compare", a, b, "--fail-on", "output")[0] == 0
    code, md, _ = cli(capsys, "--compare", a, b, "--fail-on", "status")
    assert code == 1
    assert "- notebooks/04_lesson.ipynb: passed → failed at cell 1" in md
    assert "Not run in B (the notebook stopped before them): cells 2-3." in md
    assert "Cell 2" not in md  # unrun cells are not reported as changed outputs


def test_a_partial_run_reports_what_is_missing_once(capsys, tmp_path, clean):
    a, _ = clean
    partial = make_run(tmp_path / "partial", {n: lesson({}) for n in NAMES[:2]})
    code, out, _ = cli(capsys, "--compare", a, partial, "--json", "--fail-on", "status,output")
    assert code == 0
    data = json.loads(out)
    assert data["missing"] == {"only_in_a": [f"notebooks/{n}" for n in NAMES[2:]], "only_in_b": []}
    assert [d["path"] for d in data["notebooks"]] == [f"notebooks/{n}" for n in NAMES[:2]]
    _, md, _ = cli(capsys, "--compare", a, partial)
    assert md.count("03_lesson") == 1 and "absent" not in md
    assert "Only in run A (4 notebooks, not compared; run B did not run them): notebooks/02_lesson" in md


def test_durations_report_only_what_the_runs_own_spread_does_not_explain(capsys, tmp_path):
    books = {n: lesson({}) for n in NAMES}
    base = {n: 10.0 + i for i, n in enumerate(NAMES)}
    # run B on a loaded machine: everything ~2x slower (with jitter), one notebook 8x slower
    slow = {n: 2 * t * (1 + 0.05 * (-1) ** i) for i, (n, t) in enumerate(base.items())}
    slow[NAMES[3]] = 8 * base[NAMES[3]]
    a = make_run(tmp_path / "a", books, durations=base)
    b = make_run(tmp_path / "b", books, durations=slow)
    code, out, _ = cli(capsys, "--compare", a, b, "--json", "--fail-on", "duration")
    data = json.loads(out)
    assert code == 1 and data["changes"]["duration"] == ["notebooks/03_lesson.ipynb"]
    assert data["durations"]["method"] == "noise"
    assert 1.8 < data["durations"]["overall_ratio"] < 2.2
    _, md, _ = cli(capsys, "--compare", a, b)
    assert "Durations are wall-clock seconds on a machine that may be shared" in md
    assert "| notebooks/03_lesson.ipynb | 13.0 | 104.0 | +700% |" in md
    assert "| notebooks/01_lesson.ipynb |" not in md.split("## Durations")[1]  # 2x with the rest: noise


def test_a_user_threshold_replaces_the_noise_estimate(capsys, tmp_path):
    books = {n: lesson({}) for n in NAMES}
    a = make_run(tmp_path / "a", books, durations=dict.fromkeys(NAMES, 10.0))
    b = make_run(tmp_path / "b", books, durations={**dict.fromkeys(NAMES, 10.0), NAMES[0]: 14.0})
    assert cli(capsys, "--compare", a, b, "--fail-on", "duration")[0] == 0  # 1.4x is within the 1.5x floor
    code, out, _ = cli(
        capsys, "--compare", a, b, "--json", "--fail-on", "duration", "--duration-threshold", "30"
    )
    assert code == 1 and json.loads(out)["durations"]["threshold"] == pytest.approx(0.3)


def test_durations_decide_nothing_with_too_few_notebooks_or_tiny_changes():
    few = check_durations([("a", 1.0, 50.0), ("b", 1.0, 1.0)])
    assert few.method == "too-few" and few.changed == []
    tiny = check_durations([(str(i), 0.2, 0.2) for i in range(5)] + [("x", 0.2, 0.9)])
    assert tiny.changed == []  # 4.5x, but 0.7 s: kernel start-up and timer noise


def test_the_environment_is_compared_row_by_row(capsys, tmp_path):
    books = {NAMES[0]: lesson({})}
    a = make_run(tmp_path / "a", books)
    gpu = {**ENV, "torch": "2.14.1+cu130", "cuda": "13.0", "cudnn": 91300, "device_name": "NVIDIA H200"}
    b = make_run(tmp_path / "b", books, env=gpu)
    _, md, _ = cli(capsys, "--compare", a, b)
    assert "| torch **≠** | 2.13.0+cpu | 2.14.1+cu130 |" in md
    assert "| CUDA **≠** |  | 13.0 |" in md and "| cuDNN **≠** |  | 91300 |" in md
    assert "| CPU capability | AVX2 | AVX2 |" in md and "| threads | 2 | 2 |" in md
    assert "| course commit | 0123abcd | 0123abcd |" in md
    assert "ROCm" not in md  # only rows some run recorded
    assert "device NVIDIA H200" in environment_line(gpu) and "ROCm" not in environment_line(gpu)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--fail-on", "outputs"], "comma-separated list of status, output, duration, stall; got 'outputs'"),
        (["--duration-threshold", "-5"], "expected a positive percentage"),
    ],
)
def test_bad_gates_are_refused(capsys, clean, args, message):
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--compare", *map(str, clean), *args])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_gates_without_compare_are_refused(capsys):
    code, _, err = cli(capsys, "--json", "--fail-on", "status")
    assert code == 2 and "go with --compare RUN_A RUN_B" in err


def test_change_kinds_parse_in_order_once():
    assert parse_change_kinds("output, status,output") == ("output", "status")


def test_a_version_1_report_still_compares(tmp_path, clean):
    a, _ = clean
    data = json.loads((a / "report.json").read_text())
    data["report_version"] = 1
    del data["environment"]
    for r in data["results"]:
        del r["code_cell"]
    (a / "report.json").write_text(json.dumps(data))
    assert load_report(a).environment == {}
    assert compare_runs(a, clean[1]).changes()["status"] == []


def test_a_changed_cell_whose_source_was_edited_shows_both_sources(capsys, tmp_path, clean):
    a, _ = clean
    edited = lesson({1: "loss 0.4300\n"})
    edited.cells[3].source = "# cell 1, edited in run B\nprint('1')"
    b = make_run(tmp_path / "edited", {n: edited if n == NAMES[2] else lesson({}) for n in NAMES})
    out = cli(capsys, "--compare", a, b)[1]
    section = out.split("### notebooks/02_lesson.ipynb")[1]
    assert "source in run A:" in section and "Source in run B:" in section
    assert section.index("source in run A") < section.index("edited in run B")
