"""The hub commands on home folders made here: release, collect, class-progress; links; the learner id."""

from __future__ import annotations

import csv
import json
import os
import shutil
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from autograd_course.cli import main
from autograd_course.course import course_root, exercise_notebooks
from autograd_course.learner import read_learner
from autograd_course.protocol import PROGRESS_FILE
from autograd_instructor.commands.links import notebook_links

SOLVED_A = course_root() / "solutions" / "A_detached_output.ipynb"


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("release") / "student"
    assert main(["release", str(out)]) == 0
    return out


def _home(homes: Path, user: str, release: Path, layout: str = "course") -> Path:
    """A learner's home as nbgitpuller leaves it (course/) or as `start` does (my-work/)."""
    home = homes / user
    if layout == "course":
        shutil.copytree(release, home / "course")
        return home / "course"
    work = home / "my-work"
    shutil.copytree(release / "notebooks", work / "lessons")
    for nb in (release / "exercises").glob("*.ipynb"):
        shutil.copy(nb, work / nb.name)
    return work


def _age(folder: Path, seconds: float = 60) -> None:
    """Make every file in folder look `seconds` old: it arrived then."""
    then = time.time() - seconds
    for p in folder.rglob("*"):
        os.utime(p, (then, then))


def test_release_has_lessons_and_exercises_and_never_solutions(release, tmp_path):
    names = {p.relative_to(release).as_posix() for p in release.rglob("*") if p.is_file()}
    assert not any(n.startswith("solutions") for n in names)
    assert {f"exercises/{p.name}" for p in exercise_notebooks()} <= names
    assert "notebooks/00_mental_model.ipynb" in names and "README.md" in names
    assert main(["release", str(release)]) == 0  # an earlier release is updated in place
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    assert main(["release", str(mine)]) == 2
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]


@pytest.mark.parametrize(
    ("roster", "expected"),
    [
        ("name\nAda\n", "expected a CSV with a header 'id,name,files'"),
        ("id,name\nada,Ada\nada,Ada B\n", "id 'ada' appears twice"),
        ("Student,ID,SIS User ID\nPoints Possible,,\nTest Student,9,\n", "no learner to draw a variant for"),
    ],
)
def test_a_graded_release_reads_the_roster_grade_reads_and_refuses_a_bad_one_before_writing(
    tmp_path, capsys, roster, expected
):
    (tmp_path / "roster.csv").write_text(roster, encoding="utf-8")
    out = tmp_path / "rel"
    assert main(["release", str(out), "--graded", "--roster", str(tmp_path / "roster.csv")]) == 2
    assert expected in capsys.readouterr().err and not out.exists()


def test_collect_copies_each_learners_notebooks_by_user_name_and_refuses_escapes(release, tmp_path, capsys):
    homes = tmp_path / "homes"
    ada = _home(homes, "ada", release)
    shutil.copy(SOLVED_A, ada / "exercises" / SOLVED_A.name)
    work = _home(homes, "bob", release, "my-work")
    (work / "course.json").write_text(json.dumps({"learner": "bob@uni.edu"}))
    (homes / "carol").mkdir()
    secret = tmp_path / "secret.ipynb"
    secret.write_text("{}")
    (work / "B_frozen_layer.ipynb").unlink()
    (work / "B_frozen_layer.ipynb").symlink_to(secret)
    (homes / "carol" / "course").symlink_to(ada)  # another learner's work is not carol's
    out, roster = tmp_path / "subs", tmp_path / "roster.csv"
    assert main(["collect", str(homes), "--out", str(out), "--roster", str(roster)]) == 0
    printed = capsys.readouterr()
    assert "nothing to collect from: carol" in printed.out
    assert "bob: my-work/B_frozen_layer.ipynb is a symlink" in printed.err
    assert "carol: symlinks not followed: course" in printed.err
    assert (out / "ada" / "course" / "exercises" / SOLVED_A.name).read_bytes() == SOLVED_A.read_bytes()
    assert (ada / "exercises" / SOLVED_A.name).is_file()  # copied, never moved
    assert not (out / "bob" / "my-work" / "B_frozen_layer.ipynb").exists()
    rows = {r["name"]: r for r in csv.DictReader(roster.read_text().splitlines())}
    assert (rows["ada"]["id"], rows["bob"]["id"], rows["carol"]["id"]) == ("ada", "bob@uni.edu", "carol")
    assert rows["carol"]["files"] == "" and len(rows["ada"]["files"].split(";")) == len(exercise_notebooks())
    assert all((out / f).is_file() for r in rows.values() for f in r["files"].split(";") if f)
    # Never into a folder that holds something, never twice over the same roster.
    assert main(["collect", str(homes), "--out", str(out), "--roster", str(tmp_path / "r2.csv")]) == 2
    assert main(["collect", str(homes), "--out", str(tmp_path / "new"), "--roster", str(roster)]) == 2
    assert "exists" in capsys.readouterr().err


def test_collect_refuses_two_learners_with_one_id(release, tmp_path, capsys):
    homes = tmp_path / "homes"
    for user in ("ada", "bob"):
        (_home(homes, user, release, "my-work") / "course.json").write_text(json.dumps({"learner": "same"}))
    assert main(["collect", str(homes), "--out", str(tmp_path / "subs")]) == 2
    assert "both have learner id 'same'" in capsys.readouterr().err
    assert not (tmp_path / "subs").exists()


def test_class_progress_shows_each_learners_state_without_running_anything(release, tmp_path, capsys):
    homes = tmp_path / "homes"
    ada = _home(homes, "ada", release)
    _home(homes, "bob", release, "my-work")
    (homes / "carol").mkdir()
    _age(homes)
    shutil.copy(SOLVED_A, ada / "exercises" / SOLVED_A.name)  # saved now: after it arrived
    lesson = ada / "notebooks" / "00_mental_model.ipynb"
    nb = json.loads(lesson.read_text())
    for cell in nb["cells"]:  # a correct your-turn verdict, as the check cell leaves it
        if cell.get("metadata", {}).get("autograd_course", {}).get("role") == "check":
            data = {"application/vnd.autograd-course.yourturn+json": {"id": "00.2", "outcome": "correct"}}
            cell["outputs"] = [{"output_type": "display_data", "data": data, "metadata": {}}]
            break
    lesson.write_text(json.dumps(nb))
    assert main(["class-progress", str(homes), "--json"]) == 0
    state = {s["user"]: s for s in json.loads(capsys.readouterr().out)}
    assert state["ada"]["lessons_run"] == ["00"] and state["ada"]["activities_correct"] == 1
    # the notebook's own verdicts are its word: shown as self-reported, never as passed
    assert state["ada"]["parts_self_reported"] == ["A.1", "A.2"] and state["ada"]["parts_total"] >= 16
    assert state["ada"]["parts_passed"] == []
    assert state["ada"]["last_file"] in {
        f"course/exercises/{SOLVED_A.name}",
        "course/notebooks/00_mental_model.ipynb",
    }
    assert (
        state["bob"]["started"] and state["bob"]["lessons_run"] == [] and state["bob"]["parts_passed"] == []
    )
    assert not state["carol"]["started"]
    assert main(["class-progress", str(homes)]) == 0
    table = capsys.readouterr().out
    assert "Not started: carol" in table and "self-reported: A.1, A.2" in table.splitlines()[2]
    page = tmp_path / "room.html"
    assert main(["class-progress", str(homes), "--html", str(page)]) == 0
    text = page.read_text()
    assert '<meta http-equiv="refresh"' in text and '<td data-label="learner">ada</td>' in text
    assert "Not started: carol" in text


def test_a_graded_room_counts_parts_answered_and_tells_untouched_from_started_by_content(tmp_path, capsys):
    (tmp_path / "roster.csv").write_text("id,name\nada,Ada\nbob,Bob\n")
    release = tmp_path / "student"
    assert main(["release", str(release), "--graded", "--roster", str(tmp_path / "roster.csv")]) == 0
    capsys.readouterr()
    homes = tmp_path / "homes"
    ada = _home(homes, "ada", release)
    _home(homes, "bob", release)  # cloned now: new files, nothing in them
    a = next((ada / "exercises").glob("A_*.ipynb"))
    nb = json.loads(a.read_text())
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("autograd_course", {})
        if meta.get("role") == "answer" and meta.get("part") == 1:
            cell["source"] = "stage = Stage.LOSS_NOT_IN_GRAPH\nevidence = debug_tensor(loss)\n"
    a.write_text(json.dumps(nb))
    lesson = ada / "notebooks" / "00_mental_model.ipynb"
    nb = json.loads(lesson.read_text())
    next(c for c in nb["cells"] if c.get("outputs"))["outputs"] = []  # cleared and saved
    lesson.write_text(json.dumps(nb))
    assert main(["class-progress", str(homes), "--json"]) == 0
    state = {s["user"]: s for s in json.loads(capsys.readouterr().out)}
    assert state["ada"]["graded"] and state["ada"]["parts_answered"] == ["A.1"]
    assert state["ada"]["lessons_run"] == ["00"] and state["ada"]["started"]
    assert state["ada"]["last_file"] in {
        f"course/exercises/{a.name}",
        "course/notebooks/00_mental_model.ipynb",
    }
    assert not state["bob"]["started"] and state["bob"]["last_activity"] is None
    assert main(["class-progress", str(homes)]) == 0
    table = capsys.readouterr().out
    assert "1/16 answered (A.1)" in table and "passed by check" not in table and "Not started: bob" in table
    page = tmp_path / "room" / "index.html"  # a folder that does not exist yet
    assert main(["class-progress", str(homes), "--html", str(page)]) == 0
    assert "1/16 answered (A.1)" in page.read_text()
    (tmp_path / "file").write_text("")
    assert main(["class-progress", str(homes), "--html", str(tmp_path / "file" / "x.html")]) == 2
    assert capsys.readouterr().err.startswith("error: cannot write")


def test_class_progress_reads_the_progress_file_check_writes(release, tmp_path, capsys):
    homes = tmp_path / "homes"
    work = _home(homes, "bob", release, "my-work")
    name = SOLVED_A.name
    entry = {"mtime": time.time() + 5, "passed": False, "statuses": ["part 1: passed", "part 2: failed"]}
    (work / PROGRESS_FILE).parent.mkdir()
    (work / PROGRESS_FILE).write_text(json.dumps({name: entry}))
    assert main(["class-progress", str(homes), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["parts_passed"] == ["A.1"]


def test_class_progress_refuses_a_missing_folder(tmp_path, capsys):
    assert main(["class-progress", str(tmp_path / "nope")]) == 2
    assert "expected the folder" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("repo", "clone", "folder"),
    [
        (
            "https://gitlab.example.edu/group/sub/course.git",
            "https://gitlab.example.edu/group/sub/course.git",
            "course",
        ),
        ("git@git.example.edu:team/course.git", "git@git.example.edu:team/course.git", "course"),
        ("file:///srv/git/autograd.git", "file:///srv/git/autograd.git", "autograd"),
    ],
)
def test_hub_links_take_any_git_url_and_colab_only_github(repo, clone, folder, capsys):
    (link, *_) = notebook_links(repo, "student", "https://hub.example.edu")
    query = parse_qs(urlparse(link.hub).query)
    assert query["repo"] == [clone] and query["branch"] == ["student"]
    assert query["urlpath"] == [f"lab/tree/{folder}/{link.path}"]
    assert query["targetpath"] == [folder]  # nbgitpuller would clone into course.git/ otherwise
    assert link.colab == ""
    assert main(["links", "--repo", repo, "--hub", "https://hub.example.edu"]) == 0
    assert "Colab opens notebooks from github.com only" in capsys.readouterr().err


def test_on_a_hub_the_user_name_is_the_learner_id(tmp_path, monkeypatch):
    monkeypatch.delenv("AUTOGRAD_COURSE_LEARNER", raising=False)
    monkeypatch.setenv("JUPYTERHUB_USER", "ada")
    assert read_learner(tmp_path) == "ada"
    (tmp_path / "course.json").write_text(json.dumps({"learner": "ada@uni.edu"}))
    assert read_learner(tmp_path) == "ada@uni.edu"  # an id the learner gave wins
    monkeypatch.setenv("AUTOGRAD_COURSE_LEARNER", "from-env")
    assert read_learner(tmp_path) == "from-env"
