"""Exports that say what happened: untouched learners blank in the LMS files, the release roster's names
kept by `collect`, real learner-id problems listed before the untouched notebooks, the feedback page's
Markdown rendered. No kernel runs."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

from autograd_course.cli import main
from autograd_course.course import exercise_notebooks
from autograd_instructor.grading.grade import Record
from autograd_instructor.grading.results import read_results, write_results

UNSTAMPED = "no learner id stamped and no broken code printed: graded as 'x' (roster id)"


def _untouched(student: str, exercise: str = "A") -> list[Record]:
    sub = f"{student}/{exercise}.ipynb"
    return [
        Record(sub, exercise, part, "not_attempted", "the answer cell is empty", student, note=UNSTAMPED)
        for part in (1, 2)
    ]


def _records() -> list[Record]:
    tried = Record("ann/A.ipynb", "A", 1, "failed", "the stage is not the one", "ann")
    stamped = Record("ann/B.ipynb", "B", 1, "failed", "no", "ann", note="stamped 'zed', its folder is 'ann'")
    return [tried, stamped, *_untouched("ben"), *_untouched("ben", "B"), *_untouched("cy")]


def test_untouched_learners_are_blank_in_every_lms_file_and_named_so_in_grades(tmp_path):
    write_results(_records(), tmp_path, names={"ann": "Ann", "ben": "Ben", "cy": "Cy"})
    grades = {r["id"]: r for r in csv.DictReader((tmp_path / "grades.csv").open())}
    assert (grades["ann"]["status"], grades["ann"]["total"]) == ("graded", "0")  # tried: a real 0
    assert grades["ben"]["status"] == grades["cy"]["status"] == "untouched"
    canvas = {r[2]: r[5] for r in list(csv.reader((tmp_path / "canvas.csv").open()))[2:]}
    moodle = {r[0]: r[2] for r in list(csv.reader((tmp_path / "moodle.csv").open()))[1:]}
    assert canvas == moodle == {"ann": "0", "ben": "", "cy": ""}


def test_an_untouched_learner_is_missing_in_the_results_too(tmp_path):
    write_results(_records(), tmp_path)
    rows = list(csv.DictReader((tmp_path / "results.csv").open()))
    untouched = [r for r in rows if r["student"] in ("ben", "cy")]
    assert len(untouched) == 6 and {r["status"] for r in untouched} == {"missing"}
    assert all("no answer in any part" in r["message"] and float(r["points"]) == 0 for r in untouched)
    assert {r["status"] for r in rows if r["student"] == "ann"} == {"failed"}  # tried: graded, a real 0
    summary = (tmp_path / "summary.md").read_text()
    assert "## Missing (2)\n\n`ben`, `cy`" in summary
    assert "fill in the answer cells" in (tmp_path / "feedback" / "ben.md").read_text()
    write_results(read_results(tmp_path)[0], tmp_path / "again")  # results read back (as --merge does)
    again = {r["id"]: r["status"] for r in csv.DictReader((tmp_path / "again" / "grades.csv").open())}
    assert again["ben"] == again["cy"] == "untouched" and again["ann"] == "graded"


def test_summary_lists_real_id_problems_first_and_untouched_notebooks_in_one_line(tmp_path):
    write_results(_records(), tmp_path)
    section = (tmp_path / "summary.md").read_text().split("## Learner ids to check\n\n", 1)[1]
    lines = section.split("\n\n", 1)[0].splitlines()
    assert lines == [
        "- `ann/B.ipynb`: stamped 'zed', its folder is 'ann'",
        "- 3 notebook(s) with no answer, never run, no learner id stamped: `ben/A.ipynb`, `ben/B.ipynb`, "
        "`cy/A.ipynb`",
    ]


def test_the_feedback_page_renders_its_markdown(tmp_path):
    write_results(_records(), tmp_path)
    page = (tmp_path / "feedback" / "ann.html").read_text()
    assert "<em>A practice notebook; graded by the grader on inputs you had not seen.</em>" in page
    assert "<strong>0 / 48</strong>" in page
    text = page.split("</style>", 1)[1]
    assert "*" not in text, [line for line in text.splitlines() if "*" in line]


def _home(homes: Path, user: str) -> None:
    folder = homes / user / "course" / "exercises"
    folder.mkdir(parents=True)
    shutil.copy(exercise_notebooks()[0], folder)


def test_collect_keeps_the_release_rosters_names(tmp_path, capsys):
    homes = tmp_path / "homes"
    for user in ("ada", "bob"):
        _home(homes, user)
    names = tmp_path / "release-roster.csv"
    names.write_text("id,name\nada,Ada Lovelace\n")
    roster = tmp_path / "subs-roster.csv"
    argv = ["collect", str(homes), "--out", str(tmp_path / "subs"), "--roster", str(roster)]
    assert main([*argv, "--names", str(names)]) == 0
    rows = {r["id"]: r["name"] for r in csv.DictReader(roster.open())}
    assert rows == {"ada": "Ada Lovelace", "bob": "bob"}
    assert f"not on {names} (named by user name): bob" in capsys.readouterr().err
    names.write_text("name\nAda\n")
    again = ["collect", str(homes), "--out", str(tmp_path / "subs2"), "--roster", str(tmp_path / "r2.csv")]
    assert main([*again, "--names", str(names)]) == 2
    assert capsys.readouterr().err.startswith(f"error: --names {names}: expected a CSV")
