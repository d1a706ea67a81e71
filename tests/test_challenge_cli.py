"""start, reset, progress and grade's argument checks: files only, no kernels."""

from __future__ import annotations

import json
import os
import re

from autograd_course.cli import main
from autograd_course.course import course_root


def _exercises():
    return sorted((course_root() / "exercises").glob("*.ipynb"))


def test_start_copies_every_exercise_and_never_overwrites(tmp_path, capsys):
    ws = tmp_path / "ws"
    ws.mkdir()
    mine = ws / _exercises()[0].name
    mine.write_text("my work, not a notebook yet")
    assert main(["start", str(ws)]) == 0
    assert mine.read_text() == "my work, not a notebook yet"
    assert sorted(p.name for p in ws.glob("*.ipynb")) == [p.name for p in _exercises()]
    assert (ws / _exercises()[1].name).read_bytes() == _exercises()[1].read_bytes()
    assert "kept" in capsys.readouterr().out
    assert main(["start", str(ws)]) == 0  # a second start changes nothing
    assert mine.read_text() == "my work, not a notebook yet"


def test_start_points_a_lessons_challenge_link_at_the_workspace(tmp_path):
    ws = tmp_path / "ws"
    assert main(["start", str(ws)]) == 0
    last = sorted((ws / "lessons").glob("*.ipynb"))[-1]
    links = re.findall(r"\]\((\.\./[^)]+)\)", last.read_text(encoding="utf-8"))
    assert links and all((last.parent / link).resolve().is_file() for link in links), links


def test_start_refuses_a_file_as_workspace(tmp_path, capsys):
    target = tmp_path / "afile"
    target.write_text("x")
    assert main(["start", str(target)]) == 2
    assert "not a folder" in capsys.readouterr().err and target.read_text() == "x"


def test_reset_backs_up_the_learners_version_then_restores(tmp_path, capsys):
    ws = tmp_path / "ws"
    assert main(["start", str(ws)]) == 0
    target = ws / _exercises()[0].name
    target.write_text("learner's edits")
    assert main(["reset", "A", "--dir", str(ws)]) == 0
    assert main(["reset", "A", "--dir", str(ws)]) == 0  # twice in the same second: two backups
    backups = sorted((ws / "backups").glob("A_*.ipynb"))
    assert len(backups) == 2
    assert backups[0].read_text() == "learner's edits" or backups[1].read_text() == "learner's edits"
    assert target.read_bytes() == _exercises()[0].read_bytes()


def test_reset_unknown_exercise_is_a_clear_error(tmp_path, capsys):
    assert main(["reset", "Z9", "--dir", str(tmp_path)]) == 2
    assert "expected one of A, B" in capsys.readouterr().err


def test_progress_reads_the_last_check_and_notices_edits(tmp_path, capsys):
    ws = tmp_path / "ws"
    assert main(["start", str(ws)]) == 0
    a, b = (ws / p.name for p in _exercises()[:2])
    state = {
        a.name: {"mtime": a.stat().st_mtime, "passed": True, "statuses": []},
        b.name: {"mtime": b.stat().st_mtime, "passed": True, "statuses": []},
    }
    (ws / ".autograd-course").mkdir()
    (ws / ".autograd-course" / "progress.json").write_text(json.dumps(state))
    os.utime(b, (b.stat().st_atime, b.stat().st_mtime + 10))  # edited after the check
    capsys.readouterr()
    assert main(["progress", "--dir", str(ws)]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}
    assert lines["A"].endswith("done") and "changed since the last check" in lines["B"]
    assert out.splitlines()[-1].startswith(f"Next: {b} ")  # the notebook saved last, not done


def test_progress_without_workspace_says_what_to_do(tmp_path, capsys):
    assert main(["progress", "--dir", str(tmp_path / "nope")]) == 2
    captured = capsys.readouterr()
    assert "error: " in captured.err and "autograd-course start" in captured.err and not captured.out


def test_grade_refuses_out_inside_submissions_and_writes_nothing(tmp_path, capsys):
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "a.ipynb").write_text("{}")
    before = sorted(p.name for p in subs.rglob("*"))
    assert main(["grade", str(subs), "--out", str(subs / "results")]) == 2
    assert sorted(p.name for p in subs.rglob("*")) == before
    assert main(["grade", str(tmp_path / "missing"), "--out", str(tmp_path / "r")]) == 2
    assert main(["grade", str(subs), "--out", str(tmp_path / "r"), "--jobs", "0"]) == 2
    err = capsys.readouterr().err
    assert "inside the submissions folder" in err and "not a folder" in err and "--jobs >= 1" in err


def test_grade_never_overwrites_existing_results(tmp_path, capsys):
    subs, out = tmp_path / "subs", tmp_path / "out"
    subs.mkdir()
    out.mkdir()
    (subs / "a.ipynb").write_text("{}")
    (out / "results.json").write_text("earlier results")
    assert main(["grade", str(subs), "--out", str(out)]) == 2
    assert (out / "results.json").read_text() == "earlier results"
    assert "--overwrite" in capsys.readouterr().err


def test_check_without_notebooks_is_a_clear_error(tmp_path, capsys):
    assert main(["check", str(tmp_path / "nothing")]) == 2
    assert "autograd-course start" in capsys.readouterr().err


def test_check_hands_the_grader_absolute_paths(tmp_path, monkeypatch, capsys):
    # The grader's kernel runs in a scratch folder, so a relative PATH must be resolved first.
    import autograd_instructor.grading.grade as grading
    from autograd_instructor.grading.results import Record

    seen = {}

    def fake_grade_folder(items, **kwargs):
        seen["paths"] = [item.path for item in items]
        return [Record(item.name, "A", 1, "passed", "ok") for item in items]

    monkeypatch.setattr(grading, "grade_folder", fake_grade_folder)
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "A_detached_output.ipynb").write_text("{}")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "work/A_detached_output.ipynb"]) == 0
    assert seen["paths"] == [tmp_path / "work" / "A_detached_output.ipynb"]
    assert all(p.is_absolute() for p in seen["paths"])
