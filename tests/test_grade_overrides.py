"""The instructor's overrides: one changes a part's grade in every output and survives a regrade; bad
rows are refused on stderr before anything is graded; `--merge` applies what the shards recorded."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import nbformat
import pytest
from solved import solved_for

from autograd_course.cli import main
from autograd_course.course import course_root
from autograd_instructor.challenge.notebooks import challenge_cells
from autograd_instructor.grading.grade import Record
from autograd_instructor.grading.gradescope import gradescope_results
from autograd_instructor.grading.overrides import COLUMNS, read_overrides
from autograd_instructor.grading.results import read_results, write_results

COMMENT = "Your fix was right: the grader missed your scheduler; full marks."


def _exercise(ex_id: str) -> nbformat.NotebookNode:
    return nbformat.read(next((course_root() / "exercises").glob(f"{ex_id}_*.ipynb")), as_version=4)


def _class(root: Path) -> tuple[Path, Path]:
    """ann answered part 1 of A only; ben submitted A untouched; cid nothing. (submissions, roster)"""
    subs = root / "subs"
    nb, solved = _exercise("A"), solved_for("ann", "A")
    answers = {m["part"]: solved.cells[i].source for i, m in challenge_cells(solved) if m["role"] == "answer"}
    for i, m in challenge_cells(nb):
        if m["role"] == "answer" and m["part"] == 1:
            nb.cells[i].source = answers[1]
    for who, book in (("ann", nb), ("ben", _exercise("A"))):
        (subs / who).mkdir(parents=True)
        nbformat.write(book, subs / who / "A_detached_output.ipynb")
    roster = root / "roster.csv"
    roster.write_text("id,name\nann,Ann Arbor\nben,Ben Bay\ncid,Cid Cole\n")
    return subs, roster


def _rows(path: Path) -> list[list[str]]:
    return list(csv.reader(path.open()))


def _grade(subs: Path, roster: Path, out: Path, *extra: str) -> int:
    argv = ["grade", str(subs), "--roster", str(roster), "--out", str(out), "--sandbox", "none", "-q"]
    return main([*argv, "--jobs", "1", *extra])


def _assert_overridden(out: Path) -> None:
    records = [r for r in json.loads((out / "results.json").read_text()) if r["student"] == "ann"]
    part2 = next(r for r in records if r["exercise"] == "A" and r["part"] == 2)
    assert part2["status"] == "not_attempted" and part2["points"] == 3
    assert part2["override"] == {"points": 3, "comment": COMMENT, "grader_points": 0}
    csv_row = next(
        r for r in csv.DictReader((out / "results.csv").open()) if r["student"] == "ann" and r["part"] == "2"
    )
    assert csv_row["points"] == "3.0" and csv_row["override"] == f"3 (grader 0): {COMMENT}"
    grades = {r[0]: r for r in _rows(out / "grades.csv")}
    assert grades["ann"][2] == "5" and grades["ann"][10] == "5"  # A: 2 (part 1) + 3 (override)
    canvas = {r[2]: r for r in _rows(out / "canvas.csv")[2:]}
    assert canvas["ann"] == ["Ann Arbor", "", "ann", "", "", "5"]
    moodle = {r[0]: r for r in _rows(out / "moodle.csv")[1:]}
    assert moodle["ann"] == ["ann", "Ann Arbor", "5", f"A.2: {COMMENT}"]
    feedback = (out / "feedback" / "ann.md").read_text()
    assert "Your instructor set this part's points to 3." in feedback and COMMENT in feedback
    assert "Total: **5 / 48**" in feedback
    assert COMMENT in (out / "audit" / "ann.html").read_text()
    recs, _ = read_results(out)
    data = gradescope_results([r for r in recs if r.student == "ann"])
    test = next(t for t in data["tests"] if t["name"] == "Exercise A, part 2")
    assert test["score"] == 3 and COMMENT in test["output"] and data["score"] == 5


@pytest.mark.slow
def test_an_override_changes_the_grade_everywhere_and_survives_a_regrade(tmp_path, capsys):
    subs, roster = _class(tmp_path)
    overrides = tmp_path / "overrides.csv"
    overrides.write_text(f'learner,exercise,part,points,comment\nann,A,2,3,"{COMMENT}"\n')
    out = tmp_path / "out"
    assert _grade(subs, roster, out, "--overrides", str(overrides)) == 0
    _assert_overridden(out)
    # untouched (ben) and missing (cid) learners are blank in the LMS files, not 0
    canvas = {r[2]: r[5] for r in _rows(out / "canvas.csv")[2:]}
    assert canvas["ben"] == "" and canvas["cid"] == ""
    assert {r[0]: r[12] for r in _rows(out / "grades.csv")[1:]}["ben"] == "untouched"
    assert _grade(subs, roster, out, "--overwrite", "--overrides", str(overrides)) == 0  # the regrade
    _assert_overridden(out)
    capsys.readouterr()
    assert _grade(subs, roster, out, "--overwrite") == 0  # forgotten: said, not silently kept
    assert "applied 1 override(s); this run has no --overrides" in capsys.readouterr().err
    assert {r[0]: r[10] for r in _rows(out / "grades.csv")[1:]}["ann"] == "2"


def _shard(folder: Path, overrides: Path | None) -> None:
    records = [
        Record("ann/A.ipynb", "A", 1, "passed", "ok", "ann"),
        Record("ann/A.ipynb", "A", 2, "failed", "x never changed", "ann", checks=[["params_move", False]]),
    ]
    rows = read_overrides(overrides) if overrides else []
    write_results(
        records, folder, names={"ann": "Ann Arbor"}, roster_ids=["ann"], shard="1/1", overrides=rows
    )


def test_merge_applies_the_overrides_its_shards_recorded_and_an_unknown_exercise_is_refused(tmp_path, capsys):
    overrides = tmp_path / "o.csv"
    overrides.write_text("learner,exercise,part,points,comment\nann,a,2,4,ok\n")  # any case
    _shard(tmp_path / "s1", overrides)
    assert main(["grade", "--merge", str(tmp_path / "s1"), "--out", str(tmp_path / "m"), "-q"]) == 0
    assert _rows(tmp_path / "m" / "canvas.csv")[2][5] == "6"
    assert (
        "Your instructor set this part's points to 4." in (tmp_path / "m" / "feedback" / "ann.md").read_text()
    )


BAD = {
    "learner,ex,part,points\nann,A,2,3\n": "expected the header learner,exercise,part,points,comment",
    "learner,exercise,part,points\nann,Z,2,3\n": "line 2: exercise 'Z' is not one of A, B",
    "learner,exercise,part,points\nann,A,3,3\n": "line 2: part '3' must be 1 or 2",
    "learner,exercise,part,points\nann,A,1,3\n": "line 2: points 3 outside 0 to 2 for part 1",
    "learner,exercise,part,points\nann,A,2,lots\n": "line 2: points 'lots' is not a number",
    "learner,exercise,part,points\nann,A,2,3\nann,A,2,1\n": "line 3: ann A part 2 is already on line 2",
    "learner,exercise,part,points\nzed,A,2,3\n": "line 2: learner 'zed' is not in this class",
}


@pytest.mark.parametrize("text", list(BAD))
def test_a_bad_override_row_is_refused_on_stderr_before_grading(tmp_path, capsys, text):
    subs = tmp_path / "subs"
    (subs / "ann").mkdir(parents=True)
    (subs / "ann" / "A.ipynb").write_text("")
    overrides = tmp_path / "o.csv"
    overrides.write_text(text)
    argv = [
        "grade",
        str(subs),
        "--out",
        str(tmp_path / "out"),
        "--sandbox",
        "none",
        "--overrides",
        str(overrides),
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert BAD[text] in err and err.startswith("error: --overrides")
    assert not (tmp_path / "out").exists()


def test_the_documented_overrides_file_is_what_the_grader_reads(tmp_path):
    docs = (course_root() / "docs" / "grading.md").read_text(encoding="utf-8")
    example = docs.split("### Overrides", 1)[1].split("```csv\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "o.csv"
    path.write_text(example)
    assert example.splitlines()[0] == ",".join(COLUMNS)
    (row,) = read_overrides(path)
    assert (row.learner, row.exercise, row.part, row.points) == ("s-4711", "B", 2, 4.0)
