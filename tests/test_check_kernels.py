"""`check` of a workspace starts one kernel per part for its notebooks (per --jobs), not one per notebook."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from solved import solved_for

from autograd_course.cli import main
from autograd_instructor.commands.check import submissions
from autograd_instructor.grading import grade


def test_notebooks_are_split_into_jobs_groups_of_neighbours():
    files = {f"{x}.ipynb": Path(f"{x}.ipynb") for x in ("A", "B", "C", "D", "E")}
    one = submissions(files, "ada", jobs=1)
    assert [s.name for s in one] == list(files) and len({s.student for s in one}) == 1
    assert {s.learner for s in one} == {"ada"}
    two = submissions(files, None, jobs=2)
    students = [s.student for s in two]
    assert len(set(students)) == 2 and students == sorted(students)  # neighbours, table order kept
    assert len(set(s.student for s in submissions(files, None, jobs=9))) == 5  # never an empty group


@pytest.mark.slow
def test_check_of_a_workspace_runs_a_kernel_per_part_and_judges_each_notebook(tmp_path, monkeypatch, capsys):
    ws = tmp_path / "my-work"
    assert main(["start", str(ws)]) == 0
    solved = next(ws.glob("B_*.ipynb"))
    nbformat.write(solved_for(None, "B"), solved)
    kernels = []
    real = grade.execute_cells
    monkeypatch.setattr(grade, "execute_cells", lambda *a, **kw: kernels.append(a) or real(*a, **kw))
    capsys.readouterr()
    assert main(["check", str(ws)]) == 1  # the untouched ones are not attempted
    assert len(kernels) == 2  # one kernel per part, shared by the workspace's notebooks
    out = capsys.readouterr().out
    words = [line.split() for line in out.splitlines()]
    rows = [w[:4] for w in words if w and w[0].endswith(".ipynb")]
    outcomes = {(name.split("_")[0], part): status for name, _, part, status in rows}
    exercises = sorted(p.name.split("_")[0] for p in ws.glob("*.ipynb"))
    assert len(exercises) == 8 and sorted({e for e, _ in outcomes}) == exercises
    assert outcomes.pop(("B", "1")) == outcomes.pop(("B", "2")) == "passed"
    assert set(outcomes.values()) == {"not_attempted"}
