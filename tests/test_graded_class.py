"""Honest work earns full points in both modes: two learners' own variants, every exercise, answered as
the reference does, graded by `grade_folder` (one kernel per learner, hidden runs), 48 of 48 each; in the
graded release's notebooks and in practice notebooks alike."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from solved import solved_for

from autograd_course.cli import main as cli_main
from autograd_course.exercises import EXERCISES
from autograd_instructor.challenge.notebooks import challenge_cells
from autograd_instructor.challenge.secret import graded_key, read_secret
from autograd_instructor.grading.grade import Submission, grade_folder
from autograd_instructor.grading.scoring import exercise_max, score

pytestmark = pytest.mark.slow
LEARNERS = ("s-4711", "noor")


def _graded_copy(release: Path, learner: str, ex_id: str, out: Path, secret: str) -> Path:
    """The release's graded notebook with this learner's honest answers in its answer cells (for the
    variant the release drew with its secret)."""
    nb = nbformat.read(next((release / "exercises").glob(f"{ex_id}_*.ipynb")), as_version=4)
    solved = solved_for(graded_key(secret, learner), ex_id)
    answers = {
        (m["part"]): solved.cells[i].source for i, m in challenge_cells(solved) if m["role"] == "answer"
    }
    for i, m in challenge_cells(nb):
        if m["role"] == "answer":
            nb.cells[i].source = answers[m["part"]]
    path = out / learner / f"{ex_id}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


@pytest.mark.parametrize("mode", ["graded", "practice"])
def test_honest_learners_earn_every_point(tmp_path, mode):
    subs, secret = [], None
    if mode == "graded":
        (tmp_path / "roster.csv").write_text("id,name\n" + "".join(f"{i},{i}\n" for i in LEARNERS))
        assert (
            cli_main(["release", str(tmp_path / "rel"), "--graded", "--roster", str(tmp_path / "roster.csv")])
            == 0
        )
        secret = read_secret(tmp_path / "rel.secret.json")
    for learner in LEARNERS:
        for ex_id in EXERCISES:
            if mode == "graded":
                path = _graded_copy(tmp_path / "rel", learner, ex_id, tmp_path / "subs", secret)
            else:
                path = tmp_path / "subs" / learner / f"{ex_id}.ipynb"
                path.parent.mkdir(parents=True, exist_ok=True)
                nbformat.write(solved_for(learner, ex_id), path)
            subs.append(Submission(learner, f"{learner}/{path.name}", path, learner=learner))
    records = grade_folder(subs, jobs=2, timeout=300, progress=False, secret=secret)
    for learner in LEARNERS:
        mine = [r for r in records if r.student == learner]
        assert {r.mode for r in mine} == {mode}
        assert [r.message for r in mine if r.status != "passed"] == []
        assert sum(score(r) for r in mine) == exercise_max() * len(EXERCISES) == 48
