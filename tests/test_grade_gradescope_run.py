"""The Gradescope bundle's run_autograder, end to end on a fake root (`$AUTOGRADER_ROOT`, its venv this
test's Python): a learner's notebook in their own style (helpers from earlier ordinary cells, a cell
magic, a fix unlike the reference) gets full points in results.json, and a wrong one gets the points
its behaviour earns, naming the check that failed, with no hidden seed in what the learner reads.
Real kernels (sandboxed where bubblewrap works), as on Gradescope; tests/test_grade_installs.py runs
the same bundle from a fresh install."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from solved import solved_for

from autograd_course.cli import main
from autograd_instructor.challenge.notebooks import challenge_cells

pytestmark = pytest.mark.slow

# Exercise A: compute_loss detaches the model's output, so nothing is recorded for the loss.
_EARLIER = (
    "def broken_error():\n    model, optimizer = broken_setup(seed, device)\n"
    "    with expect_error(RuntimeError) as caught:\n        broken_step(model, optimizer, inputs, targets)\n"
    "    return caught.exception\n\n\n"
    "def mean_square(prediction, wanted):\n    return ((prediction - wanted) ** 2).mean()\n"
)
HONEST = {
    1: "%%time\nevidence = [broken_error(), torch.is_grad_enabled()]\nstage = Stage.LOSS_NOT_IN_GRAPH\n",
    2: "def fixed_compute_loss(model, inputs, targets):\n    return mean_square(model(inputs), targets)\n",
}
WRONG = {
    1: "stage = Stage.LOSS_NOT_IN_GRAPH\nevidence = [RuntimeError('element 0 of tensors does not require "
    "grad and does not have a grad_fn'), True]\n",
    2: "def fixed_compute_loss(model, inputs, targets):\n    return ((model(inputs) - targets) ** 2).sum()\n",
}


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """A fake Gradescope root: the bundle's run_autograder, and this test's Python as its venv."""
    tmp = tmp_path_factory.mktemp("gradescope")
    assert main(["gradescope", "--out", str(tmp / "autograder.zip")]) == 0
    with zipfile.ZipFile(tmp / "autograder.zip") as zf:
        script = zf.read("run_autograder").decode()
    root = tmp / "autograder"
    root.mkdir()
    (root / "run_autograder").write_text(script)
    (root / "venv").symlink_to(sys.prefix)
    return root


def _submitted(root: Path, name: str, answers: dict[int, str]) -> dict:
    """Submit exercise A with the answers after an earlier cell of helpers, as sid s2; results.json."""
    nb = solved_for("s2", "A")
    cells = [i for i, m in challenge_cells(nb) if m["role"] == "answer"]
    for i in cells:
        nb.cells[i].source = answers[nb.cells[i].metadata["autograd_course"]["part"]]
    nb.cells.insert(cells[0], nbformat.v4.new_code_cell(_EARLIER))
    case = root.parent / name
    (case / "submission").mkdir(parents=True)
    nbformat.write(nb, case / "submission" / "A.ipynb")
    (case / "submission_metadata.json").write_text(json.dumps({"users": [{"sid": "s2", "email": "e@x"}]}))
    (case / "venv").symlink_to(sys.prefix)
    env = dict(os.environ, AUTOGRADER_ROOT=str(case))
    done = subprocess.run(
        ["bash", str(root / "run_autograder")], env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads((case / "results" / "results.json").read_text())


def test_an_answer_in_the_learners_own_style_gets_full_points(root):
    data = _submitted(root, "honest", HONEST)
    assert data["score"] == sum(t["max_score"] for t in data["tests"]) == 6, data


def test_a_wrong_answer_gets_what_its_behaviour_earns_naming_the_check(root):
    data = _submitted(root, "wrong", WRONG)
    tests = {t["name"]: t for t in data["tests"]}
    one, two = tests["Exercise A, part 1"], tests["Exercise A, part 2"]
    assert one["score"] == 0 and "not raised by this notebook's code" in one["output"], one["output"]
    assert two["score"] < two["max_score"], two["output"]
    assert "but the mean squared error of the model" in two["output"], two["output"]  # true_loss failed
    assert "seed=" not in json.dumps(data)
