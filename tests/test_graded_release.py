"""A graded release puts no answer where learners work: a fresh venv holding the learners' install
(`pip install ./course`) and the release's folders are searched for every reference answer of every
learner, and the graded notebook still runs there (its format check, no verdict)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from importlib.metadata import requires
from pathlib import Path

import nbformat
import pytest
from fresh_venv import PROJECT, make_venv

from autograd_course.cli import main as cli_main
from autograd_course.exercises import EXERCISES
from autograd_instructor.challenge.catalogue import BUGS
from autograd_instructor.challenge.draw import variant_for
from autograd_instructor.challenge.parts import PARTS
from autograd_instructor.challenge.secret import graded_key, read_secret

pytestmark = pytest.mark.slow
LEARNERS = ["alice", "bob", "s-1042"]


def _answers(learner: str) -> set[str]:
    """Distinctive lines of every reference answer of one draw id: proofs, repairs, what the bug teaches."""
    found = set()
    for ex_id in EXERCISES:
        variant = variant_for(learner, ex_id)
        bug = BUGS[variant.bug]
        found.add(bug._proof.strip())  # the reference proof, whole
        found.add(bug.lesson[:60])  # what part 1's correct verdict teaches
        found.add(PARTS[2]._solution(variant).strip())  # the reference repair, whole
    return found


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("graded")
    (root / "roster.csv").write_text("id,name\n" + "".join(f"{i},{i.title()}\n" for i in LEARNERS))
    assert cli_main(["release", str(root / "out"), "--graded", "--roster", str(root / "roster.csv")]) == 0
    return root


def test_the_learners_side_holds_no_reference_answer(release):
    core = [r for r in requires(PROJECT) or [] if "extra ==" not in r]
    venv = make_venv(release / "venv", [r.split(";")[0] for r in core])
    done = venv.pip(
        "install", "--no-deps", "--no-index", "--no-build-isolation", str(release / "out" / "course")
    )
    assert done.returncode == 0, done.stdout + done.stderr
    course = [venv.site / "autograd_course", venv.site / "helpers"]
    files = [
        p for d in course for p in d.rglob("*") if p.is_file() and p.suffix in (".py", ".json", ".txt", ".md")
    ]
    files += [
        p
        for p in (release / "out").rglob("*")
        if p.is_file() and "course" not in p.relative_to(release / "out").parts[:1]
    ]
    text = "\n".join(p.read_text(errors="ignore") for p in files)
    assert "def judge_evidence" not in text and "_proof" not in text  # no catalogue, no contract
    secret = read_secret(release / "out.secret.json")
    assert secret not in text  # the secret stays with the instructor
    for learner in [*LEARNERS, *(graded_key(secret, learner) for learner in LEARNERS)]:
        leaked = sorted(a for a in _answers(learner) if a in text)
        assert leaked == [], f"{learner}: {leaked[:3]}"
    for module in ("autograd_instructor", "autograd_instructor.challenge", "autograd_instructor.grading"):
        probe = subprocess.run(
            [str(venv.python), "-c", f"import {module}"],
            capture_output=True,
            text=True,
            cwd=release,
            env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},  # the venv's own install only
        )
        assert probe.returncode != 0 and "No module named" in probe.stderr
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    helped = subprocess.run(
        [str(venv.python), "-m", "autograd_course", "help", "all"],
        capture_output=True,
        text=True,
        cwd=release,  # not the checkout: `-m` puts the working folder on sys.path
        env=env,
    )
    assert helped.returncode == 0, helped.stderr
    listed = set(re.findall(r"^  (\S+)  ", helped.stdout, re.MULTILINE))
    assert listed == {"learn", "start", "progress", "reset", "map", "help"}  # the learner's commands only
    assert "none in this install" in helped.stdout


def test_a_graded_notebook_gives_a_format_check_and_never_a_verdict(release, monkeypatch):
    from autograd_course.graded import challenge

    folder = release / "out" / "exercises"
    nb = nbformat.read(folder / "A_detached_output.ipynb", as_version=4)
    assert nb.metadata["autograd_course"]["mode"] == "graded"
    assert "solution()" not in nb.cells[0].source and "diagnose" not in nb.cells[5].source
    data = json.loads((folder / "graded-variants.json").read_text())
    assert "alice" not in json.dumps(data) and len(data["learners"]) == len(LEARNERS)
    monkeypatch.setenv("AUTOGRAD_COURSE_LEARNER", "alice")
    monkeypatch.setenv(
        "AUTOGRAD_COURSE_TOKEN", json.loads((release / "out.tokens.json").read_text())["alice"]
    )
    ns: dict = {"seed": 0, "device": "cpu"}
    ex = challenge("A", ns, folder)
    assert ex.code() == __import__("autograd_instructor.challenge.catalogue", fromlist=["render"]).render(
        variant_for(graded_key(read_secret(release / "out.secret.json"), "alice"), "A")
    )
    from helpers import Stage

    messages = set()
    for stage in Stage:  # no in-kernel oracle: every well-formed stage gets the same answer
        ns |= {"stage": stage, "evidence": [1.0]}
        messages.add(ex.part1.verdict().message)
    assert len(messages) == 1 and "graded" in messages.pop(), messages
    assert "no solution" in ex.part1.solution_text()
