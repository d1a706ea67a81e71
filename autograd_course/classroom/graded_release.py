"""A graded release: the challenge for a class, with no answer anywhere the learners work.

`make_graded_release(out, roster_ids)` adds to a student release (release.py):
- exercises/: the challenge notebooks stamped graded; they import autograd_course.graded (format
  checks and hints, no solution, no verdict) and not the doctor;
- exercises/graded-variants.json: each learner's broken code and hints, rendered here by the
  instructor's install, each sealed with that learner's token (sealed.py; no bug, stage, proof, repair);
- course/: the learner's install (`pip install ./course`): the toolkit and the course package without
  the challenge's catalogue, draw, proofs and repairs and without the grader, and without every module
  that imports them. Lessons and their activities stay (they are practice).
"""

from __future__ import annotations

import ast
import json
import re
import shutil
from importlib.metadata import metadata, requires
from pathlib import Path

import nbformat

import autograd_course
import helpers
from autograd_course.challenge.catalogue import exercise, render
from autograd_course.challenge.draw import variant_for
from autograd_course.challenge.graded_hints import graded_hints
from autograd_course.challenge.secret import graded_key, learner_token
from autograd_course.course import course_map_text
from autograd_course.graded import VARIANTS_FILE
from autograd_course.modes import GRADED
from autograd_course.protocol import META_KEY
from autograd_course.sealed import entry_key, seal

__all__ = [
    "ANSWER_MODULES",
    "README_COMMANDS",
    "graded_notebook",
    "graded_readme",
    "learner_modules",
    "make_graded_release",
    "variants_data",
    "what_graded_shows",
]

# Where the answers live: never copied to a learner install, nor is any module that imports them.
ANSWER_MODULES = ("autograd_course.challenge", "autograd_course.grading")
_LEARNER_PYPROJECT = """\
[build-system]
requires = ["setuptools>=69", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "autograd-debugging-course"
version = "{version}"
description = "The learner's install of a graded release: lessons, toolkit, graded notebooks; no answers."
requires-python = ">=3.11"
dependencies = {dependencies}

[project.scripts]
autograd-course = "autograd_course.cli:main"

[tool.setuptools.packages.find]
include = ["helpers*", "autograd_course*"]

[tool.setuptools.package-data]
"*" = ["*.html", "*.css", "*.js", "*.json", "*.md", "*.cfg", "*.txt", "*.svg"]
"""


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module a file imports, at any depth (imports inside functions too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return found


def learner_modules(root: Path) -> dict[str, Path]:
    """{module: file} of the course package's modules that neither are nor import an answer module."""
    files = {_module_name(p, root): p for p in (root / "autograd_course").rglob("*.py")}
    imports = {m: _imports(p) for m, p in files.items()}  # each file parsed once
    dropped = {m for m in files if m.startswith(ANSWER_MODULES)}
    while True:
        more = {
            m for m in files if m not in dropped and any(i.startswith(tuple(dropped)) for i in imports[m])
        }
        if not more:
            return {m: p for m, p in files.items() if m not in dropped}
        dropped |= more


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
                "from autograd_course.challenge import", "from autograd_course.graded import"
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
    """course/: the learner's installable package, with no answer module."""
    package_root = Path(autograd_course.__file__).resolve().parent.parent
    written = []
    target = out / "course"
    shutil.rmtree(target, ignore_errors=True)
    kept = set(learner_modules(package_root).values())
    answers = [package_root / Path(*m.split(".")) for m in ANSWER_MODULES]
    course_files = [
        p
        for p in (package_root / "autograd_course").rglob("*")
        if p.is_file()
        and "__pycache__" not in p.parts
        and "content" not in p.relative_to(package_root).parts[1:2]
        and (p in kept if p.suffix == ".py" else not any(p.is_relative_to(a) for a in answers))
    ]
    toolkit = [p for p in Path(helpers.__file__).resolve().parent.rglob("*.py")]
    for path in course_files + toolkit:
        dest = target / path.relative_to(package_root)
        dest.parent.mkdir(parents=True, exist_ok=True)
        written.append(Path(shutil.copyfile(path, dest)))
    core = [r for r in requires("autograd-debugging-course") or [] if "extra ==" not in r]
    version = metadata("autograd-debugging-course")["Version"]
    pyproject = _LEARNER_PYPROJECT.format(version=version, dependencies=json.dumps(core))
    (target / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    return [*written, target / "pyproject.toml"]


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
