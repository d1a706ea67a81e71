"""A graded release: the challenge for a class, with no answer anywhere the learners work.

`make_graded_release(out, roster_ids)` adds to a student release (release.py):
- exercises/: the challenge notebooks stamped graded; they import autograd_course.graded (format
  checks and hints, no solution, no verdict) and not the doctor;
- exercises/graded-variants.json: each learner's broken code and hints, rendered here by the
  instructor's install, each sealed with that learner's token (sealed.py; no bug, stage, proof, repair);
- course/: the learner's install (`pip install ./course`): the learner's part of the code as it is,
  the packages helpers/ and autograd_course/ and that part's own pyproject
  (autograd_course/learner-pyproject.toml). The challenge's catalogue, draw, proofs and repairs and the
  grader are in autograd_instructor, which is not copied. Lessons and their activities stay (practice).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat

import autograd_course
from autograd_course.course import course_map_text
from autograd_course.graded import VARIANTS_FILE
from autograd_course.modes import GRADED
from autograd_course.protocol import META_KEY
from autograd_course.sealed import entry_key, seal
from autograd_instructor.challenge.catalogue import exercise, render
from autograd_instructor.challenge.draw import variant_for
from autograd_instructor.challenge.graded_hints import graded_hints
from autograd_instructor.challenge.secret import graded_key, learner_token

__all__ = [
    "LEARNER_PACKAGES",
    "README_COMMANDS",
    "graded_notebook",
    "graded_readme",
    "make_graded_release",
    "variants_data",
    "what_graded_shows",
]

# The learner's part: what a graded release's course/ holds, each package copied whole, as it is.
LEARNER_PACKAGES = ("helpers", "autograd_course")
LEARNER_PYPROJECT = "learner-pyproject.toml"  # in autograd_course/: the learner part's own project file


def variants_data(exercise_ids: list[str], roster_ids: list[str], secret: str) -> dict:
    """Each learner's broken code and hints per exercise, drawn by the learner's graded key, sealed
    with the learner's token and stored under its entry key (autograd_course/sealed.py): no id, no
    salt, nothing that opens another learner's entry."""
    learners = {}
    for learner in roster_ids:
        entry = {}
        for ex_id in exercise_ids:
            variant = variant_for(graded_key(secret, learner), ex_id)
            entry[ex_id] = {
                "code": render(variant),
                "hints1": list(graded_hints(variant, 1)),
                "hints2": list(graded_hints(variant, 2)),
            }
        token = learner_token(secret, learner)
        learners[entry_key(token)] = seal(entry, token)
    return {"format": 2, "learners": learners}


_INTRO = re.compile(r"Stuck\? .*", re.DOTALL)


def graded_notebook(nb: nbformat.NotebookNode, exercise_id: str) -> nbformat.NotebookNode:
    """A challenge notebook turned graded: its metadata, its imports and its intro say so."""
    nb = nbformat.from_dict(nb)
    nb.metadata.setdefault(META_KEY, {})
    nb.metadata[META_KEY] |= {"mode": GRADED, "exercise": exercise_id}
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = cell.source.replace(
                "from autograd_instructor.challenge import", "from autograd_course.graded import"
            )
            cell.source = re.sub(r"\n\s*diagnose,", "", cell.source)
        elif cell.source.startswith("# Challenge"):
            cell.source = _INTRO.sub(
                "**Graded.** Hints: `ex.part1.hint()`, `ex.part1.hint(2)`. The checks here run your answer "
                "on your own code as the grader will and say what would fail, never whether the stage is "
                "right; your instructor's `autograd-course grade` runs each answer cell, after the earlier "
                "cells that define what it uses (a model, a helper, an import), on broken code and seeds "
                "you have not seen, and gives the verdict.",
                cell.source,
            )
    return nb


# The commands the learners' install offers that the README names; tests/test_class_install.py checks
# each is in that install and works there.
README_COMMANDS = ("reset",)


def graded_readme(exercise_count: int) -> str:
    """The graded release's README: the lessons, the challenge graded by the instructor, the commands."""
    lessons = course_map_text().splitlines()[:-1]  # its last line is the practice challenge's
    return (
        "# Autograd Debugging\n\nOpen `notebooks/00_mental_model.ipynb` and work through the lessons in "
        "order; then the challenge in `exercises/`.\n\n"
        "**The challenge is graded by your instructor.** In each exercise notebook, a part's check "
        "(`ex.part1.check()`) runs your answer on your own code as the grader will and says what would "
        "fail, never whether the stage is right, and its hints are there (`ex.part1.hint()`, "
        "`ex.part1.hint(2)`); your instructor runs each answer cell, after the earlier cells that define "
        "what it uses, on broken code and seeds you have not seen, and gives the verdict. Save your "
        "notebooks: your instructor collects them from here. Each notebook "
        "opens your own exercise with the token your instructor gave you (`AUTOGRAD_COURSE_TOKEN`, "
        "usually set for you on the hub).\n\n"
        "In a terminal (File > New > Terminal), in this folder:\n\n"
        "- `autograd-course reset A --dir exercises` restores exercise A as your instructor released "
        "it (`M1`, `b`, ...: any exercise); your version is kept in `exercises/backups/`.\n"
        "- `autograd-course reset 03 --dir notebooks` does the same for lesson 03.\n\n"
        "```text\n"
        + "\n".join(lessons)
        + f"\n  then: the TinyNet bug challenge ({exercise_count} notebooks), "
        "graded by your instructor\n```\n"
    )


GRADED_TEACHES = (
    "## What this teaches\n\nThis notebook is graded: its checks say whether an answer is well formed, "
    "never whether it is right. In your instructor's feedback, a correct part 1 says what this bug "
    "teaches, and part 2 lists each check of your fixed training as shown or not shown."
)


def what_graded_shows(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The closing "What this teaches" cell says where a graded notebook's verdicts are: the feedback."""
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.source.startswith("## What this teaches"):
            rest = cell.source.split("\n\nNext:", 1)
            cell.source = GRADED_TEACHES + (f"\n\nNext:{rest[1]}" if len(rest) == 2 else "")
    return nb


def _write_course(out: Path) -> list[Path]:
    """course/: the learner's part as it is (LEARNER_PACKAGES and its pyproject), nothing pruned."""
    package_root = Path(autograd_course.__file__).resolve().parent.parent
    target = out / "course"
    shutil.rmtree(target, ignore_errors=True)
    files = [
        p
        for package in LEARNER_PACKAGES
        for p in (package_root / package).rglob("*")
        if p.is_file()
        and "__pycache__" not in p.parts
        and "content" not in p.relative_to(package_root).parts[1:2]  # a wheel's lessons stay out
    ]
    written = []
    for path in files:
        dest = target / path.relative_to(package_root)
        dest.parent.mkdir(parents=True, exist_ok=True)
        written.append(Path(shutil.copyfile(path, dest)))
    project = package_root / "autograd_course" / LEARNER_PYPROJECT
    return [*written, Path(shutil.copyfile(project, target / "pyproject.toml"))]


def make_graded_release(
    out: Path, exercise_notebooks: list[Path], roster_ids: list[str], secret: str
) -> list[Path]:
    """Write the graded exercises, their variants file (drawn with the release's secret, which is not
    written here) and the learner's install into out."""
    if not roster_ids:
        raise ValueError("a graded release draws a variant per learner: pass --roster with the class's ids")
    written = []
    folder = out / "exercises"
    folder.mkdir(parents=True, exist_ok=True)
    ids = []
    for path in exercise_notebooks:
        nb = nbformat.read(path, as_version=4)
        ex_id = path.name.split("_", 1)[0]
        exercise(ex_id)
        ids.append(ex_id)
        nbformat.write(what_graded_shows(graded_notebook(nb, ex_id)), folder / path.name)
        written.append(folder / path.name)
    (folder / VARIANTS_FILE).write_text(json.dumps(variants_data(ids, roster_ids, secret)), encoding="utf-8")
    (out / "README.md").write_text(graded_readme(len(ids)), encoding="utf-8")
    return [*written, folder / VARIANTS_FILE, *_write_course(out)]
