"""A Canvas download graded with a roster of SIS ids, and a zipped workspace; no kernel runs.

The notebooks are empty files (graded `error` without a kernel): what is checked is who they belong
to, the gradebook rows and summary.md, not the points.
"""

from __future__ import annotations

import csv
import json
import zipfile
from pathlib import Path

import pytest

from autograd_course.cli import main
from autograd_course.course import course_root

ROSTERS = {
    # the course's roster, with a canvas_id for one learner; the other is matched by name
    "course": "id,name,files,canvas_id\ns1,Jane Smith,,\ns2,Bob Ng,,2002\ns3,Zoe Zed,,\n",
    # Canvas' own gradebook export, Points Possible row and Test Student included
    "export": (
        "Student,ID,SIS User ID,SIS Login ID,Section,Autograd challenge\n"
        "Points Possible,,,,,48\n"
        '"Smith, Jane",,s1,jsmith,S1,\n'
        '"Ng, Bob",2002,s2,bng,S1,\n'
        '"Zed, Zoe",,s3,zzed,S1,\n'
        '"Student, Test",9999,,,S1,\n'
    ),
}


def _canvas_download(root: Path) -> Path:
    subs = root / "canvas"
    subs.mkdir()
    for name in (
        "smithjane_2001_998877_A_detached_output.ipynb",
        "smithjane_LATE_2001_998878_B_frozen_layer.ipynb",
        "ngbob_2002_998879_A_detached_output.ipynb",
        "doejohn_2003_998880_A_detached_output.ipynb",  # not on the roster
    ):
        (subs / name).write_text("")
    return subs


def _rows(path: Path) -> list[list[str]]:
    with path.open(newline="") as f:
        return list(csv.reader(f))


@pytest.mark.parametrize("kind", sorted(ROSTERS))
def test_a_canvas_download_is_matched_to_a_roster_of_sis_ids(tmp_path, kind):
    subs = _canvas_download(tmp_path)
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTERS[kind])
    out = tmp_path / "out"
    assert main(["grade", str(subs), "--roster", str(roster), "--out", str(out), "--sandbox", "none"]) == 3
    records = json.loads((out / "results.json").read_text())
    owners = {r["submission"]: r["student"] for r in records if r["status"] != "missing"}
    assert owners == {
        "smithjane_2001_998877_A_detached_output.ipynb": "s1",
        "smithjane_LATE_2001_998878_B_frozen_layer.ipynb": "s1",
        "ngbob_2002_998879_A_detached_output.ipynb": "s2",
        "doejohn_2003_998880_A_detached_output.ipynb": "2003",
    }
    assert {r["student"] for r in records if r["status"] == "missing"} == {"s3"}
    canvas = _rows(out / "canvas.csv")[2:]
    # one row per learner: the Canvas user id in ID, the roster's SIS id in SIS User ID; no blank twins
    assert sorted(canvas) == sorted(
        [
            ["Jane Smith" if kind == "course" else "Smith, Jane", "2001", "s1", "", "", "0"],
            ["Bob Ng" if kind == "course" else "Ng, Bob", "2002", "s2", "", "", "0"],
            ["Zoe Zed" if kind == "course" else "Zed, Zoe", "", "s3", "", "", ""],
            ["doejohn", "2003", "", "", "", "0"],
        ]
    )
    moodle = {row[0]: row[2] for row in _rows(out / "moodle.csv")[1:]}
    assert moodle == {"s1": "0", "s2": "0", "s3": ""}
    summary = (out / "summary.md").read_text()
    section = summary.split("## Canvas users and the roster")[1].split("\n## ")[0]
    assert "`s1` (" in section and "Canvas user 2001, matched by name" in section
    assert "Canvas user 2002, matched by the roster's canvas_id" in section
    assert "Canvas user 2003 (doejohn): not matched to a roster row" in section


def test_two_roster_rows_with_one_name_match_no_canvas_user_by_name(tmp_path):
    subs = _canvas_download(tmp_path)
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name\ns1,Jane Smith\ns9,Smith Jane\n")
    out = tmp_path / "out"
    main(["grade", str(subs), "--roster", str(roster), "--out", str(out), "--sandbox", "none"])
    records = json.loads((out / "results.json").read_text())
    assert {r["student"] for r in records if r["status"] == "missing"} == {"s1", "s9"}
    assert "Canvas user 2001 (smithjane): not matched" in (out / "summary.md").read_text()


def test_a_zipped_workspace_grades_its_exercises_and_skips_its_lessons(tmp_path):
    subs = tmp_path / "subs"
    (subs / "ann").mkdir(parents=True)
    lessons = sorted((course_root() / "notebooks").glob("*.ipynb"))[:3]
    with zipfile.ZipFile(subs / "ann" / "my-work.zip", "w") as zf:
        for lesson in lessons:
            zf.writestr(f"my-work/lessons/{lesson.name}", lesson.read_bytes())
            zf.writestr(f"{lesson.name}", lesson.read_bytes())  # a lesson's own name, anywhere
        zf.writestr("my-work/A_detached_output.ipynb", "")
    out = tmp_path / "out"
    assert main(["grade", str(subs), "--out", str(out), "--sandbox", "none"]) == 3
    records = json.loads((out / "results.json").read_text())
    assert [r["submission"] for r in records] == ["ann/my-work.zip/my-work/A_detached_output.ipynb"]
    assert "no challenge cells" not in (out / "summary.md").read_text()
