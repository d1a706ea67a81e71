"""Facts the docs state that code can change under them: points, the Python floor, the sandbox."""

from __future__ import annotations

import importlib.metadata as md
import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from autograd_course.fixing.fixcheck import CHECKS
from autograd_instructor.challenge import Variant
from autograd_instructor.challenge.catalogue import BUGS, EXERCISES, build_broken
from autograd_instructor.challenge.contract import judge_evidence
from autograd_instructor.challenge.evidence import summarize
from autograd_instructor.challenge.reference import REFERENCE_STEPS
from autograd_instructor.grading.grade import Record
from autograd_instructor.grading.scoring import check_points, exercise_max, part_max, score
from helpers import grad_norm, make_tiny_problem

ROOT = Path(__file__).resolve().parent.parent
GRADING = (ROOT / "docs" / "grading.md").read_text(encoding="utf-8")


def _python_floor(spec: str) -> Version:
    """The lowest Python a Requires-Python allows (">=3.11" is 3.11.0, not 3.11.5)."""
    floors = [Version(s.version) for s in SpecifierSet(spec) if s.operator in (">=", "~=")]
    return max(floors) if floors else Version("3")


def _minor(version: Version) -> Version:
    return Version(".".join(map(str, version.release[:2])))


def test_grading_md_states_the_points_the_code_gives():
    points = GRADING.split("## Points", 1)[1].split("\n## ", 1)[0]
    text = " ".join(points.split())
    assert f"part 1 is worth {part_max(1):g} points" in text
    assert f"part 2 is worth {part_max(2):g}, all of them for a correct fix" in text
    assert part_max(2) == len(CHECKS)
    assert all(f"`{check}`" in text for check in CHECKS)
    assert f"so {exercise_max():g} per exercise and {exercise_max() * len(EXERCISES):g} for the" in text


def _section(title: str) -> str:
    return " ".join(GRADING.split(f"## {title}", 1)[1].split("\n## ", 1)[0].split())


def test_grading_md_states_partial_credit_as_the_scorer_counts_it():
    text = _section("Points")
    assert "1 point per check the broken code fails that the fix passes" in text and check_points() == 1
    repaired = Record("A.ipynb", "A", 2, "failed", "", checks=[["loss_falls", True], ["params_move", False]])
    assert score(repaired) == check_points()  # its checks list only what the broken code fails
    assert score(Record("A.ipynb", "A", 2, "passed", "")) == part_max(2)


def test_grading_md_states_the_evidence_limit_and_an_honest_series_that_long_is_real():
    assert f"records the first {REFERENCE_STEPS} broken steps" in _section("Points")
    assert f"up to {REFERENCE_STEPS} consecutive steps long" in _section("Points")
    code = build_broken(Variant("D"))
    model, optimizer = code["broken_setup"](0, "cpu")
    inputs, targets = make_tiny_problem(0)
    norms = []
    for _ in range(REFERENCE_STEPS + 1):
        code["broken_step"](model, optimizer, inputs, targets)
        norms.append(grad_norm(model))
    ok, message = judge_evidence(Variant("D"), 0, BUGS["D"].stage, summarize(norms[:5]))
    assert ok, message  # 5 honest consecutive norms: accepted
    ok, message = judge_evidence(Variant("D"), 0, BUGS["D"].stage, summarize(norms))
    assert not ok and f"first {REFERENCE_STEPS} steps" in message  # past the limit, the limit is named


def test_grading_md_states_the_raising_cell_rule_and_the_lms_layouts():
    text = " ".join(GRADING.split())
    assert "an answer cell is judged on the names it set before the error" in text
    assert "a cell that raises before setting the answer names is an `error` for that part" in text
    students = _section("Students")
    assert "`<name>[_LATE]_<Canvas user id>_<submission id>_<file>`" in students
    assert "`<Full name>_<participant id>_assignsubmission_<plugin>_`) is refused (exit 2)" in students
    assert "its lessons (anything under `lessons/`, or named like a lesson) are skipped" in students
    assert "`ID` is Canvas' internal user id when it is known" in _section("Outputs")


def test_python_floor_is_one_every_pinned_package_supports():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    floor = _python_floor(project["requires-python"])
    needs = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        req = Requirement(line)
        try:
            dist = md.distribution(req.name)
        except md.PackageNotFoundError:
            continue  # not installed here: nothing to read its metadata from
        if dist.version in req.specifier and dist.metadata.get("Requires-Python"):
            needs[req.name] = dist.metadata["Requires-Python"]
    # every pin must install on the lowest Python the project allows, patch level included (3.11.0)
    too_new = {name: spec for name, spec in needs.items() if not SpecifierSet(spec).contains(floor)}
    assert not too_new, f"requires-python >= {floor}, but these pins need a newer Python: {too_new}"
    classifiers = [c.rsplit(":: ", 1)[1] for c in project["classifiers"] if "Python :: 3." in c]
    assert min(map(Version, classifiers)) == _minor(floor)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert set(re.findall(r"Python (3\.\d+)\+", readme)) == {str(_minor(floor))}


def test_the_docs_agree_that_submissions_run_in_a_sandbox():
    for doc in ("README.md", "docs/grading.md", "docs/classroom.md"):
        text = " ".join((ROOT / doc).read_text(encoding="utf-8").split())
        assert "not a sandbox" not in text, doc
        assert "sandbox" in text and "bubblewrap" in text, doc
