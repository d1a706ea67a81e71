"""exercises/ is generated from solutions/ and stays in step with it."""

from __future__ import annotations

import shutil

import nbformat
import pytest

from autograd_course.challenge.generate import PLACEHOLDERS, generate, stale_exercises
from autograd_course.challenge.notebooks import (
    BEGIN,
    META_KEY,
    challenge_cells,
    solution_notebooks,
    strip_regions,
)
from autograd_course.course import repo_root


def test_exercises_are_up_to_date_with_solutions():
    problems = stale_exercises()
    assert problems == [], "run: python -m autograd_course.challenge.generate\n" + "\n".join(problems)


def test_a_changed_solution_makes_the_exercises_stale(tmp_path):
    shutil.copytree(repo_root() / "solutions", tmp_path / "solutions")
    generate(tmp_path)
    assert stale_exercises(tmp_path) == []
    first = sorted((tmp_path / "solutions").glob("*.ipynb"))[0]
    nb = nbformat.read(first, as_version=4)
    nb.cells[0].source += "\n\nA new sentence."
    nbformat.write(nb, first)
    assert stale_exercises(tmp_path) == [f"stale: exercises/{first.name}"]
    (tmp_path / "exercises" / "Z_extra.ipynb").write_text("{}")
    assert "no solution for: exercises/Z_extra.ipynb" in stale_exercises(tmp_path)


@pytest.mark.parametrize("solution", solution_notebooks(), ids=lambda p: p.stem)
def test_solution_notebook_follows_the_exercise_pattern(solution):
    nb = nbformat.read(solution, as_version=4)
    params = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1
    assert "seed: int = 0  #" in params[0].source and 'device: str = "cpu"  #' in params[0].source
    tagged = challenge_cells(nb)
    roles = [(m["part"], m["role"]) for _, m in tagged]
    assert roles == [(1, "answer"), (1, "check"), (2, "answer"), (2, "check")]
    for i, meta in tagged:
        heading = nb.cells[i - 1]
        if meta["role"] == "answer":
            assert heading.cell_type == "markdown" and heading.source.startswith(f"## Part {meta['part']}")
            assert BEGIN in nb.cells[i].source
        else:
            assert nb.cells[i].source == f"ex.part{meta['part']}.check()"
    assert nb.cells[0].source.startswith("# Challenge ")
    assert all(c.get("execution_count") for c in nb.cells if c.cell_type == "code"), "store executed"


@pytest.mark.parametrize("solution", solution_notebooks(), ids=lambda p: p.stem)
def test_generated_exercise_has_banner_placeholders_and_no_outputs(solution):
    nb = nbformat.read(repo_root() / "exercises" / solution.name, as_version=4)
    assert (
        "Generated file, do not edit" in nb.cells[0].source
        and f"solutions/{solution.name}" in nb.cells[0].source
    )
    assert not any(BEGIN in c.source for c in nb.cells)
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code")
    for i, meta in challenge_cells(nb):
        if meta["role"] == "answer":
            assert PLACEHOLDERS[meta["part"]] in nb.cells[i].source
    if solution.stem.startswith("M"):  # mystery rounds never name the planted bug in prose
        prose = " ".join(c.source for c in nb.cells if c.cell_type == "markdown").lower()
        for word in ("learning rate", "in place", "in-place", "replaced", "zero_grad", "frozen", "detach"):
            assert word not in prose


def test_strip_regions_keeps_code_outside_and_indentation():
    src = "a = 1\n    ### BEGIN SOLUTION\n    secret()\n    ### END SOLUTION\nb = 2"
    assert strip_regions(src, "x = NotAttempted\ny = 2") == "a = 1\n    x = NotAttempted\n    y = 2\nb = 2"


def test_metadata_key_is_on_every_graded_cell():
    for solution in solution_notebooks():
        nb = nbformat.read(solution, as_version=4)
        assert sum(META_KEY in c.metadata for c in nb.cells) == 4
