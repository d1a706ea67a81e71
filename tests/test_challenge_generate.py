"""solutions/ follow the declarations, exercises/ are generated from them, and both work both ways:
every stored solution check says passed; every exercise runs to the end with every check not attempted."""

from __future__ import annotations

import contextlib
import io
import json
import shutil

import nbformat
import pytest

from autograd_course.checks import USAGE_MIME, VERDICT_MIME
from autograd_course.course import repo_root
from autograd_instructor.challenge import BUGS, EXERCISES, PARTS
from autograd_instructor.challenge.contract import contract_markdown
from autograd_instructor.challenge.generate import (
    CONTRACT_BEGIN,
    generate,
    readme_text,
    stale_files,
)
from autograd_instructor.challenge.notebooks import (
    BEGIN,
    META_KEY,
    challenge_cells,
    solution_notebooks,
    strip_regions,
)

EXERCISES_DIR = repo_root() / "exercises"


def test_solutions_exercises_and_readme_are_up_to_date():
    problems = stale_files()
    assert problems == [], "run: autograd-course generate\n" + "\n".join(problems)


def test_a_changed_solution_or_contract_makes_files_stale(tmp_path):
    shutil.copytree(repo_root() / "solutions", tmp_path / "solutions")
    (tmp_path / "README.md").write_text(
        f"intro\n{CONTRACT_BEGIN}\nold\n<!-- evidence-contract:end -->\nrest\n"
    )
    generate(tmp_path)
    assert stale_files(tmp_path) == []
    assert contract_markdown() in (tmp_path / "README.md").read_text()
    first = sorted((tmp_path / "solutions").glob("*.ipynb"))[0]
    nb = nbformat.read(first, as_version=4)
    nb.cells[0].source += "\n\nA new sentence."
    contract = next(c for c in nb.cells if c.metadata.get(META_KEY, {}).get("role") == "contract")
    contract.source = "a hand edit"
    nbformat.write(nb, first)
    assert stale_files(tmp_path) == [
        f"stale declared cells: solutions/{first.name}",
        f"stale: exercises/{first.name}",
    ]
    (tmp_path / "exercises" / "Z_extra.ipynb").write_text("{}")
    assert "no solution for: exercises/Z_extra.ipynb" in stale_files(tmp_path)
    assert readme_text("no markers") == "no markers"


def _verdicts(nb) -> list[tuple[int, str]]:
    found = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {}).get(VERDICT_MIME)
            if data:
                found.append((data["part"], data["status"]))
    return found


@pytest.mark.parametrize("solution", solution_notebooks(), ids=lambda p: p.stem)
def test_solution_notebook_follows_the_declarations_and_stores_passing_checks(solution):
    nb = nbformat.read(solution, as_version=4)
    params = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1 and "seed: int = 0  #" in params[0].source
    roles = [(m["part"], m["role"]) for _, m in challenge_cells(nb)]
    assert roles == [(p, r) for p in PARTS for r in ("task", "answer", "check")]
    contract = [c for c in nb.cells if c.metadata.get(META_KEY) == {"role": "contract"}]
    assert len(contract) == 1 and contract_markdown() in contract[0].source
    for i, meta in challenge_cells(nb):
        if meta["role"] == "answer":
            assert BEGIN in nb.cells[i].source
        if meta["role"] == "check":
            assert nb.cells[i].source == f"ex.part{meta['part']}.check()"
            kinds = [sorted(o.get("data", {})) for o in nb.cells[i].outputs]
            assert kinds == [sorted([VERDICT_MIME, USAGE_MIME, "text/html", "text/plain"])], (
                "one verdict per check, its usage record inside"
            )
    assert f'challenge("{solution.stem.split("_")[0]}", globals())' in nb.cells[params_index(nb) + 1].source
    assert _verdicts(nb) == [(1, "passed"), (2, "passed")]
    assert all(c.get("execution_count") for c in nb.cells if c.cell_type == "code"), "store executed"


def params_index(nb) -> int:
    return next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))


@pytest.mark.parametrize("solution", solution_notebooks(), ids=lambda p: p.stem)
def test_exercise_invites_editing_shows_placeholders_and_spoils_nothing(solution):
    nb = nbformat.read(EXERCISES_DIR / solution.name, as_version=4)
    text = json.dumps(nb.cells)
    assert "do not edit" not in text.lower() and "Generated file" not in text
    assert nb.metadata[META_KEY]["generated_from"] == f"solutions/{solution.name}"
    assert not any(BEGIN in c.source for c in nb.cells)
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code")
    for i, meta in challenge_cells(nb):
        if meta["role"] == "answer":
            assert PARTS[meta["part"]].placeholder in nb.cells[i].source
    prose = " ".join(
        c.source
        for c in nb.cells
        if c.cell_type == "markdown" and c.metadata.get(META_KEY, {}).get("role") != "contract"
    )
    ex = EXERCISES[solution.stem.split("_")[0]]
    bug = BUGS[ex.bug]
    assert bug.stage not in prose and bug.lesson not in prose  # the answer shows only in a correct verdict
    if ex.mystery:  # mystery rounds never name the planted bug in prose
        lower = prose.lower()
        for word in ("learning rate", "in place", "in-place", "replaced", "zero_grad", "frozen", "detach"):
            assert word not in lower


def _run_all(nb) -> tuple[list[str], dict]:
    """Every code cell in order in one namespace, as Run All would; returns each check cell's output."""
    ns: dict = {"__name__": "__main__"}
    checks = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(
                compile(cell.source, "<cell>", "exec"), ns
            )  # an exception here fails the test: Run All stops
        if cell.metadata.get(META_KEY, {}).get("role") == "check":
            checks.append(out.getvalue())
    return checks, ns


def test_every_exercise_runs_to_the_end_and_every_check_says_not_attempted(monkeypatch):
    monkeypatch.delenv("AUTOGRAD_COURSE_LEARNER", raising=False)
    for solution in solution_notebooks():
        nb = nbformat.read(EXERCISES_DIR / solution.name, as_version=4)
        checks, ns = _run_all(nb)
        ex_id = solution.stem.split("_")[0]
        assert checks == [f"{ex_id} part {p}: not attempted. {m}\n" for p, m in _NOT_ATTEMPTED], solution.name
        assert {v.status for v in ns["ex"].verdicts.values()} == {"not_attempted"}


_NOT_ATTEMPTED = [
    (1, "set `stage` and `evidence`, then run this cell again"),
    (2, "define your fixed function(s), then run this cell again"),
]


def test_strip_regions_keeps_code_outside_and_indentation():
    src = "a = 1\n    ### BEGIN SOLUTION\n    secret()\n    ### END SOLUTION\nb = 2"
    assert strip_regions(src, "x = NotAttempted\ny = 2") == "a = 1\n    x = NotAttempted\n    y = 2\nb = 2"


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("a = 1\n### BEGIN SOLUTION\nsecret()", "line 2: ### BEGIN SOLUTION is never closed"),
        ("secret()\n### END SOLUTION", "line 2: ### END SOLUTION without a ### BEGIN SOLUTION"),
        (
            "### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION",
            "line 2: ### BEGIN SOLUTION inside the region opened on line 1",
        ),
    ],
)
def test_malformed_solution_markers_raise_naming_the_line(source, message):
    with pytest.raises(ValueError, match=message):
        strip_regions(source, "x = NotAttempted")


def test_the_maintainer_tools_are_subcommands(capsys):
    from autograd_course.cli import main

    assert main(["generate", "--check"]) == 0
    assert main(["setup-cell", "--check"]) == 0
    assert "challenge files are up to date" in capsys.readouterr().out
    assert main(["setup-cell", "--check", "no/such.ipynb"]) == 2
    assert "error: no such notebook: no/such.ipynb" in capsys.readouterr().err
