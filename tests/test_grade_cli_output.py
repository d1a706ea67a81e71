"""What `grade` prints: the progress count, and -q, which leaves summary.md to its file. No kernel runs."""

from __future__ import annotations

from pathlib import Path

from autograd_course.cli import main


def _class(root: Path) -> Path:
    subs = root / "subs"
    subs.mkdir()
    for name in ("ann", "ben", "cid"):
        (subs / f"{name}.ipynb").write_text("")  # graded `error` without a kernel
    return subs


def test_the_progress_lines_count_the_graded_notebooks(tmp_path, capsys):
    assert main(["grade", str(_class(tmp_path)), "--out", str(tmp_path / "out"), "--sandbox", "none"]) == 3
    captured = capsys.readouterr()
    counts = [line.split(":")[0] for line in captured.err.splitlines() if line.startswith("graded ")]
    assert counts == ["graded 1/3", "graded 2/3", "graded 3/3"], captured.err
    assert "# Grading summary" in captured.out


def test_quiet_prints_no_summary_but_writes_it(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["grade", str(_class(tmp_path)), "--out", str(out), "--sandbox", "none", "-q"]) == 3
    captured = capsys.readouterr()
    assert captured.out == "" and "graded 1/3" not in captured.err
    assert (out / "summary.md").read_text().startswith("# Grading summary")
