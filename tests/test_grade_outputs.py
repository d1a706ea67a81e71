"""Gradebook layouts, archives, rosters, scoring, shards, exit codes and the Gradescope bundle: no kernels."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import nbformat
import pytest

import autograd_course.execution.sandbox as sandbox_mod
from autograd_course.cli import main
from autograd_course.course import course_root
from autograd_instructor.challenge.verdict import Outcome, Verdict
from autograd_instructor.grading.archives import ArchiveError, unpack
from autograd_instructor.grading.grade import Record, part2_checks, usage_of
from autograd_instructor.grading.gradescope import gradescope_results
from autograd_instructor.grading.results import write_results
from autograd_instructor.grading.scoring import exercise_max, score
from autograd_instructor.grading.shards import in_shard
from autograd_instructor.grading.students import RosterError, find_students


def _records():
    return [
        Record("alice/A.ipynb", "A", 1, "passed", "ok", "alice"),
        Record(
            "alice/A.ipynb",
            "A",
            2,
            "failed",
            "x never changed",
            "alice",
            checks=[["loss_falls", False], ["params_move", False], ["no_carryover", True]],
        ),
        Record("bob.ipynb", "B", 1, "passed", "ok", "bob", solution_viewed=True),
        Record("zoe", "-", None, "missing", "nothing submitted", "zoe"),
    ]


def test_points_give_part_credit_per_check_and_follow_the_solution_policy():
    alice1, alice2, bob1, zoe = _records()
    assert score(alice1) == 2 and score(alice2) == 1 and score(zoe) == 0
    assert score(bob1, "flag") == 2 and score(bob1, "zero") == 0
    assert exercise_max() == 6  # part 1: 2, part 2: 1 for each of its 4 checks
    with pytest.raises(ValueError, match="flag, zero"):
        score(bob1, "maybe")


def test_part2_checks_are_read_from_the_verdict():
    checks = (("true_loss", True), ("no_carryover", True), ("params_move", False), ("loss_falls", False))
    verdict = Verdict("A", 2, Outcome.INCORRECT, "the parameters never changed", checks)
    assert part2_checks(verdict) == [[n, ok] for n, ok in checks]


def test_gradebook_files_have_the_exact_import_layouts(tmp_path):
    write_results(
        _records(), tmp_path, names={"alice": "Alice A", "zoe": "Zoe Z"}, roster_ids=["alice", "zoe"]
    )
    grades = list(csv.reader((tmp_path / "grades.csv").open()))
    assert grades[0] == [
        "id",
        "name",
        "A",
        "B",
        "C",
        "D",
        "E",
        "M1",
        "M2",
        "M3",
        "total",
        "max",
        "status",
        "solution_viewed",
        "hints",
    ]
    assert (
        grades[1][:2] == ["alice", "Alice A"]
        and grades[1][2] == "3"
        and grades[1][10:13] == ["3", "48", "graded"]  # 8 exercises of 6 points
    )
    assert grades[2][0] == "bob" and grades[2][12:14] == ["not on roster", "B.1"]
    assert grades[3][0] == "zoe" and grades[3][10] == "0" and grades[3][12] == "missing"
    canvas = list(csv.reader((tmp_path / "canvas.csv").open()))
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Autograd challenge"]
    assert canvas[1] == ["Points Possible", "", "", "", "", "48"]
    # bob is not on the roster: no LMS user to match, left out; zoe submitted nothing: blank, not 0
    assert canvas[2:] == [["Alice A", "", "alice", "", "", "3"], ["Zoe Z", "", "zoe", "", "", ""]]
    moodle = list(csv.reader((tmp_path / "moodle.csv").open()))
    assert moodle[0] == ["ID number", "Full name", "Autograd challenge", "Feedback"]
    assert moodle[1:] == [["alice", "Alice A", "3", ""], ["zoe", "Zoe Z", "", ""]]
    text = (tmp_path / "feedback" / "alice.md").read_text()
    assert "✘ not shown: the loss falls" in text and "✔ no gradient carries over" in text
    assert "B.1" in (tmp_path / "summary.md").read_text()


def test_usage_records_are_read_from_outputs():
    cell = nbformat.v4.new_code_cell("ex.part2.solution()")
    mime = "application/vnd.autograd-course.usage+json"
    cell.outputs = [
        nbformat.v4.new_output(
            "display_data", {mime: {"exercise": "A", "part": 2, "kind": "solution", "level": 1}}
        ),
        nbformat.v4.new_output(
            "display_data", {mime: {"exercise": "A", "part": 1, "kind": "hint", "level": 2}}
        ),
    ]
    assert usage_of(nbformat.v4.new_notebook(cells=[cell])) == {("A", 2, "solution", 1), ("A", 1, "hint", 2)}


def _zip(path: Path, members: dict[str, bytes], link: str | None = None) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        if link:
            info = zipfile.ZipInfo(link)
            info.external_attr = 0o120777 << 16
            zf.writestr(info, "/etc/passwd")


def test_archives_unpack_and_refuse_traversal_links_and_bombs(tmp_path):
    good = tmp_path / "good.zip"
    _zip(good, {"w/A.ipynb": b"{}"})
    before = good.read_bytes()
    assert [p.relative_to(tmp_path / "o1").as_posix() for p in unpack(good, tmp_path / "o1")] == ["w/A.ipynb"]
    assert good.read_bytes() == before
    tgz = tmp_path / "good.tar.gz"
    with tarfile.open(tgz, "w:gz") as tf:
        info = tarfile.TarInfo("A.ipynb")
        info.size = 2
        tf.addfile(info, io.BytesIO(b"{}"))
    assert [p.name for p in unpack(tgz, tmp_path / "o2")] == ["A.ipynb"]
    _zip(tmp_path / "up.zip", {"../../evil.ipynb": b"{}"})
    with pytest.raises(ArchiveError, match="outside the archive"):
        unpack(tmp_path / "up.zip", tmp_path / "o3")
    _zip(tmp_path / "link.zip", {}, link="passwd")
    with pytest.raises(ArchiveError, match="symbolic link"):
        unpack(tmp_path / "link.zip", tmp_path / "o4")
    with zipfile.ZipFile(tmp_path / "bomb.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("big.ipynb", b"0" * (3 << 20))
    with pytest.raises(ArchiveError, match="expands past 2 MiB"):
        unpack(tmp_path / "bomb.zip", tmp_path / "o5", max_bytes=2 << 20)
    assert not (tmp_path / "evil.ipynb").exists()


def test_students_are_found_from_folders_files_and_the_roster(tmp_path):
    subs = tmp_path / "subs"
    (subs / "alice").mkdir(parents=True)
    (subs / "alice" / "A.ipynb").write_text("{}")
    (subs / "bob.zip").write_text("x")
    assert {s.id: len(s.files) for s in find_students(subs)} == {"alice": 1, "bob": 1}
    roster = tmp_path / "r.csv"
    roster.write_text("id,name,files\nalice,Alice,\ncarl,Carl,bob.zip\nzoe,Zoe,\n")
    got = {s.id: s for s in find_students(subs, roster)}
    assert [p.name for p in got["carl"].files] == ["bob.zip"] and got["zoe"].files == [] and "bob" not in got
    roster.write_text("name\nx\n")
    with pytest.raises(RosterError, match="id,name,files"):
        find_students(subs, roster)


def _no_kernel_class(root: Path) -> tuple[Path, Path]:
    subs = root / "subs"
    subs.mkdir()
    for i in range(6):
        (subs / f"s{i}.ipynb").write_text("" if i % 2 else "{broken")
    _zip(subs / "s9.zip", {"../x.ipynb": b"{}"})
    roster = root / "roster.csv"
    roster.write_text("id,name,files\n" + "".join(f"s{i},S {i},\n" for i in (*range(6), 9)) + "m1,Missing,\n")
    return subs, roster


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_merged_shards_equal_a_single_run(tmp_path, capsys):
    subs, roster = _no_kernel_class(tmp_path)
    common = [str(subs), "--roster", str(roster), "--sandbox", "none"]
    assert main(["grade", *common, "--out", str(tmp_path / "one")]) == 3
    for k in (1, 2, 3):
        assert main(["grade", *common, "--out", str(tmp_path / f"shard{k}"), "--shard", f"{k}/3"]) in (0, 3)
    shards = [str(tmp_path / f"shard{k}") for k in (1, 2, 3)]
    assert main(["grade", "--merge", *shards, "--out", str(tmp_path / "merged")]) == 3
    assert _files(tmp_path / "merged") == _files(tmp_path / "one")
    ids = [f"s{i}" for i in range(6)]
    assert sorted(s for k in (1, 2, 3) for s in ids if in_shard(s, k, 3)) == ids


def test_merge_refuses_repeated_missing_and_unsharded_outputs_naming_them(tmp_path, capsys):
    subs, roster = _no_kernel_class(tmp_path)
    common = [str(subs), "--roster", str(roster), "--sandbox", "none"]
    assert main(["grade", *common, "--out", str(tmp_path / "whole")]) == 3
    for k in (1, 2):
        assert main(["grade", *common, "--out", str(tmp_path / f"shard{k}"), "--shard", f"{k}/2"]) in (0, 3)
    capsys.readouterr()
    one, two, whole = (str(tmp_path / n) for n in ("shard1", "shard2", "whole"))
    cases = {
        (one, one, two): "shard 1/2 given twice",
        (one,): "incomplete set of shards, missing 2/2",
        (one, two, whole): "is not a `grade --shard K/N` output",
    }
    for k, (folders, words) in enumerate(cases.items()):
        out = tmp_path / f"merged{k}"
        assert main(["grade", "--merge", *folders, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert words in err and err.startswith("error: "), err
        assert not out.exists()


def test_exit_status_is_1_for_strict_failures_and_2_for_bad_input(tmp_path, capsys):
    subs, _ = _no_kernel_class(tmp_path)
    assert main(["grade", str(subs), "--out", str(tmp_path / "o"), "--shard", "4/3"]) == 2
    for option, value in (("--solution-viewed", "x"), ("--sandbox", "chroot")):
        with pytest.raises(SystemExit) as stopped:  # argparse's choices
            main(["grade", str(subs), "--out", str(tmp_path / "o"), option, value])
        assert stopped.value.code == 2 and f"argument {option}: invalid choice" in capsys.readouterr().err
    only_missing = tmp_path / "empty"
    only_missing.mkdir()
    r = tmp_path / "r.csv"
    r.write_text("id,name,files\nm1,M,\n")
    assert main(["grade", str(only_missing), "--out", str(tmp_path / "m"), "--roster", str(r)]) == 0
    assert (
        main(["grade", str(only_missing), "--out", str(tmp_path / "s"), "--roster", str(r), "--strict"]) == 1
    )
    assert main(["check", str(tmp_path), "--jobs", "0"]) == 2


def test_auto_without_bubblewrap_warns_in_output_and_summary(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sandbox_mod, "bwrap_problem", lambda: "bwrap is not installed")
    subs, _ = _no_kernel_class(tmp_path)
    assert main(["grade", str(subs), "--out", str(tmp_path / "o")]) == 3
    assert "UNSANDBOXED" in capsys.readouterr().err
    assert "UNSANDBOXED" in (tmp_path / "o" / "summary.md").read_text()
    assert main(["grade", str(subs), "--out", str(tmp_path / "p"), "--sandbox", "bwrap"]) == 2


def test_gradescope_bundle_and_run_autograder_against_a_fake_root(tmp_path, capsys):
    bundle = tmp_path / "autograder.zip"
    assert main(["gradescope", "--out", str(bundle)]) == 0
    with zipfile.ZipFile(bundle) as zf:
        names = set(zf.namelist())
        wheels = {n for n in names if n.endswith(".whl")}  # its contents: tests/test_grade_bundle.py
        assert names - wheels == {"setup.sh", "run_autograder", "constraints.txt"} and len(wheels) == 1
        script = zf.read("run_autograder").decode()
    assert main(["gradescope", "--out", str(bundle)]) == 2  # never overwritten
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    (root / "submission" / "A.ipynb").write_text("{broken")
    (root / "submission_metadata.json").write_text(json.dumps({"users": [{"sid": "s42", "email": "a@b"}]}))
    (root / "venv").symlink_to(sys.prefix)
    (root / "run_autograder").write_text(script)
    env = dict(os.environ, AUTOGRADER_ROOT=str(root))
    done = subprocess.run(
        ["bash", str(root / "run_autograder")], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 0 and len(results["tests"]) == 1
    (test,) = results["tests"]
    assert set(test) == {"name", "score", "max_score", "output", "visibility"}
    assert "broken JSON" in test["output"] and test["visibility"] == "visible"
    assert "download your notebook again" in test["output"]


def test_gradescope_shows_students_their_results_and_keeps_the_sandbox_warning_for_staff(capsys):
    records = [
        Record("A.ipynb", "A", 2, "failed", "the loss does not fall", "s1", checks=[["loss_falls", False]])
    ]
    records[0].max_points = 4.0
    data = gradescope_results(records, warning="WARNING: ... submissions ran UNSANDBOXED ...")
    visible = json.dumps({k: v for k, v in data.items() if k != "extra_data"})
    assert "UNSANDBOXED" not in visible and "UNSANDBOXED" in data["extra_data"]["instructor_warning"]
    assert "UNSANDBOXED" in capsys.readouterr().err
    assert "✘ not shown: the loss falls" in data["tests"][0]["output"]


def test_feedback_names_unsent_exercises_and_failed_checks_plainly_in_valid_html(tmp_path):
    records = [
        Record("alice/B.ipynb", "B", 2, "failed", "a parameter never moves", "alice"),
        Record("alice/notes.txt", "-", None, "error", "notes.txt: not a notebook", "alice"),
    ]
    records[0].checks = [["params_move", False], ["no_carryover", True]]
    write_results(records, tmp_path)
    text = (tmp_path / "feedback" / "alice.md").read_text()
    assert "Not submitted (0 points): exercises A, C, D, E, M1, M2, M3." in text
    assert "✘ not shown: every parameter moves" in text and "✔ no gradient carries over between steps" in text
    assert "(0 / 0" not in text and "download your notebook again" in text
    page = (tmp_path / "feedback" / "alice.html").read_text()
    assert page.count("<ul>") == page.count("</ul>") == 1 and "`" not in page
    assert "<code>alice/notes.txt</code>" in page


def test_each_student_is_judged_against_their_own_variant(tmp_path):
    """vera solves her own draw of M1 and passes; victor hands in the default draw's answers and fails;
    alice's stamped notebook in a folder named otherwise is graded as alice's, and the mismatch reported."""
    from autograd_course.course import content_dir
    from autograd_instructor.challenge.catalogue import exercise
    from autograd_instructor.challenge.draw import variant_for
    from autograd_instructor.challenge.parts import PARTS

    default = exercise("M1").bug
    assert variant_for("vera", "M1").bug != default and variant_for("victor", "M1").bug != default
    assert variant_for("alice", "M1").bug != variant_for("s2001", "M1").bug  # else the test proves nothing
    source = nbformat.read(next(content_dir("solutions").glob("M1_*.ipynb")), as_version=4)
    subs = tmp_path / "submissions"
    # s2001 holds alice's notebook, stamped `alice` by `start --seed alice`: graded as alice, reported.
    for student, answers_for in (("vera", "vera"), ("victor", None), ("s2001", "alice")):
        nb = nbformat.from_dict(json.loads(json.dumps(source)))
        if student == "s2001":
            nb.metadata["autograd_course"] = {"learner": "alice"}
        for cell in nb.cells:
            meta = cell.metadata.get("autograd_course", {})
            if meta.get("role") == "answer" and answers_for:
                cell.source = PARTS[meta["part"]].solution(variant_for(answers_for, "M1"))
        (subs / student).mkdir(parents=True)
        nbformat.write(nb, subs / student / "M1.ipynb")
    out = tmp_path / "results"
    main(["grade", str(subs), "--out", str(out), "--jobs", "2", "--sandbox", "none", "--timeout", "200"])
    status = {(r["student"], r["part"]): r["status"] for r in json.loads((out / "results.json").read_text())}
    assert status[("vera", 1)] == status[("vera", 2)] == "passed", status
    assert status[("victor", 1)] != "passed", status  # the default draw's proof is not proof of his
    assert status[("s2001", 1)] == status[("s2001", 2)] == "passed", status
    summary = (out / "summary.md").read_text()
    assert "stamped for learner 'alice' (start --seed) but found as 's2001'" in summary


def test_lms_downloads_are_understood_or_refused_and_lessons_are_not_submissions(tmp_path, capsys):
    subs = tmp_path / "canvas"
    (subs / "bob" / "my-work" / "lessons").mkdir(parents=True)
    (subs / "ngalice_2001_998877_M2_mystery.ipynb").write_text("")  # Canvas: name_userid_attemptid_file
    (subs / "ngalice_LATE_2001_998878_A_detached_output.ipynb").write_text("")
    lesson = next((course_root() / "notebooks").glob("00_*.ipynb"))
    (subs / "bob" / "my-work" / "lessons" / lesson.name).write_bytes(lesson.read_bytes())
    (subs / "bob" / "my-work" / "A_detached_output.ipynb").write_text("")
    out = tmp_path / "out"
    assert main(["grade", str(subs), "--out", str(out), "--sandbox", "none"]) == 3
    records = json.loads((out / "results.json").read_text())
    assert sorted({r["student"] for r in records}) == ["2001", "bob"]
    assert sorted(r["submission"] for r in records if r["student"] == "2001") == [
        "ngalice_2001_998877_M2_mystery.ipynb",
        "ngalice_LATE_2001_998878_A_detached_output.ipynb",
    ]
    assert [r["submission"] for r in records if r["student"] == "bob"] == [
        "bob/my-work/A_detached_output.ipynb"
    ]
    canvas = list(csv.reader((out / "canvas.csv").open()))
    assert ["ngalice", "2001", "", "", "", "0"] in canvas[2:]  # matched on Canvas' own user id
    moodle = tmp_path / "moodle"
    (moodle / "Alice Smith_123_assignsubmission_file_").mkdir(parents=True)
    (moodle / "Alice Smith_123_assignsubmission_file_" / "A.ipynb").write_text("")
    assert main(["grade", str(moodle), "--out", str(tmp_path / "m"), "--sandbox", "none"]) == 2
    err = capsys.readouterr().err
    assert "Moodle's 'Download all submissions'" in err and "--roster" in err
    assert not (tmp_path / "m").exists()
