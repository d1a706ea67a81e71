"""A graded class end to end, as docs/classroom.md runs it: release --graded with a roster, learners'
homes as nbgitpuller leaves them, class-progress mid-way, collect --names, grade, an override, a
regrade, and the Gradescope bundle carrying the same overrides."""

from __future__ import annotations

import csv
import json
import shutil
import zipfile
from pathlib import Path

import nbformat
import pytest
from solved import solved_for

from autograd_course.cli import main
from autograd_instructor.challenge.notebooks import challenge_cells
from autograd_instructor.challenge.secret import graded_key, read_secret
from autograd_instructor.grading.bundle import SECRET_NAME, BundleError, build_bundle

COMMENT = "Right idea, one line short: 3 of 4."


def _answer(path: Path, learner: str, secret: str) -> None:
    """Put the learner's honest answers into their graded notebook (both parts): for the variant the
    release drew with its secret."""
    nb = nbformat.read(path, as_version=4)
    solved = solved_for(graded_key(secret, learner), path.name.split("_", 1)[0])
    answers = {m["part"]: solved.cells[i].source for i, m in challenge_cells(solved) if m["role"] == "answer"}
    for i, m in challenge_cells(nb):
        if m["role"] == "answer":
            nb.cells[i].source = answers[m["part"]]
    nbformat.write(nb, path)


@pytest.mark.slow
def test_a_graded_class_from_release_to_the_regraded_exports(tmp_path, capsys):
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name\nada,Ada Lovelace\nbob,Bob Babbage\n")
    assert main(["release", str(tmp_path / "student"), "--graded", "--roster", str(roster)]) == 0
    homes = tmp_path / "homes"
    for user in ("ada", "bob"):
        shutil.copytree(
            tmp_path / "student", homes / user / "autograd-course", ignore=shutil.ignore_patterns("course")
        )
    secret = read_secret(tmp_path / "student.secret.json")
    _answer(next((homes / "ada" / "autograd-course" / "exercises").glob("A_*.ipynb")), "ada", secret)
    capsys.readouterr()
    assert main(["class-progress", str(homes), "--html", str(tmp_path / "room" / "index.html")]) == 0
    room = (tmp_path / "room" / "index.html").read_text()
    assert "2/16 answered (A.1, A.2)" in room and "Not started: bob" in room
    subs = tmp_path / "submissions"
    assert main(["collect", str(homes), "--out", str(subs), "--names", str(roster)]) == 0
    collected = tmp_path / "submissions-roster.csv"
    assert {r["id"]: r["name"] for r in csv.DictReader(collected.open())} == {
        "ada": "Ada Lovelace",
        "bob": "Bob Babbage",
    }
    overrides = tmp_path / "overrides.csv"
    overrides.write_text(f'learner,exercise,part,points,comment\nbob,B,2,3,"{COMMENT}"\n')
    out = tmp_path / "results"
    argv = ["grade", str(subs), "--roster", str(collected), "--out", str(out), "--sandbox", "none", "-q"]
    capsys.readouterr()
    assert main(argv) == 2  # graded notebooks need the release's secret
    assert "--secret FILE" in capsys.readouterr().err and not out.exists()
    argv += ["--secret", str(tmp_path / "student.secret.json")]
    for extra in ([], ["--overwrite"]):  # the grade, then the regrade
        assert main([*argv, "--overrides", str(overrides), *extra]) == 0
        canvas = {r[2]: r for r in list(csv.reader((out / "canvas.csv").open()))[2:]}
        assert canvas["ada"][0] == "Ada Lovelace" and canvas["ada"][5] == "6"  # A, both parts
        assert canvas["bob"] == ["Bob Babbage", "", "bob", "", "", "3"]  # nothing answered, but overridden
        assert COMMENT in (out / "feedback" / "bob.md").read_text()
        audit = (out / "audit" / "ada.html").read_text()
        assert "What the grader ran" in audit and "seed" in audit
        assert audit.count("proved by values this run of the broken code produced") == 2  # two hidden runs
        summary = (out / "summary.md").read_text()
        assert "notebook(s) with no answer, never run, no learner id stamped" in summary
    bob = [r for r in json.loads((out / "results.json").read_text()) if r["student"] == "bob"]
    assert [r["override"]["points"] for r in bob if r["override"]] == [3]
    bundle = build_bundle(tmp_path / "autograder.zip", overrides, tmp_path / "student.secret.json")
    assert zipfile.ZipFile(bundle).read("overrides.csv") == overrides.read_bytes()
    assert zipfile.ZipFile(bundle).read(SECRET_NAME) == (tmp_path / "student.secret.json").read_bytes()
    overrides.write_text("learner,exercise,part,points\nbob,B,2,9\n")
    with pytest.raises(BundleError, match="points 9 outside 0 to 4"):
        build_bundle(tmp_path / "bad.zip", overrides)
    assert not (tmp_path / "bad.zip").exists()
