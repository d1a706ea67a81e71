"""Write exercises/ from solutions/: solution regions become placeholders, outputs are cleared.

`python -m autograd_course.challenge.generate` rewrites exercises/; `--check` only reports
(exit 1) which generated notebooks are missing, stale, or left over.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

from autograd_course.challenge.notebooks import META_KEY, solution_notebooks, strip_regions
from autograd_course.course import content_dir, repo_root

__all__ = ["PLACEHOLDERS", "exercise_notebook", "generate", "stale_exercises"]

PLACEHOLDERS = {
    1: (
        "# Your code: run the broken setup and step with the helpers.\n"
        "stage = NotAttempted  # a helpers.Stage, e.g. Stage.GRAD_MISSING\n"
        "evidence = NotAttempted  # the report or error from the helpers that shows it"
    ),
    2: (
        "# Your code: def fixed_setup(seed, device): ... return model, optimizer\n"
        "#            def fixed_step(model, optimizer, inputs, targets): ... return loss\n"
        "fixed_setup = NotAttempted\n"
        "fixed_step = NotAttempted"
    ),
}


def _banner(source: Path) -> str:
    return (
        f"> **Generated file, do not edit.** Written by `python -m autograd_course.challenge.generate` "
        f"from `solutions/{source.name}`. Work on your copy from `autograd-course start`; "
        "edit the solution notebook to change this one."
    )


def exercise_notebook(solution: Path) -> nbformat.NotebookNode:
    """The exercise version of one solution notebook."""
    nb = nbformat.read(solution, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            meta = cell.metadata.get(META_KEY)
            if isinstance(meta, dict) and meta.get("role") == "answer":
                cell.source = strip_regions(cell.source, PLACEHOLDERS[meta["part"]])
            cell.metadata.pop("execution", None)
    banner = nbformat.v4.new_markdown_cell(_banner(solution))
    banner.metadata[META_KEY + "_generated"] = True
    nb.cells.insert(0, banner)
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i}"  # stable ids, so regenerating gives the same bytes
    nb.metadata.pop("widgets", None)
    return nb


def _text(nb: nbformat.NotebookNode) -> str:
    return nbformat.writes(nb) + "\n"


def stale_exercises(root: Path | None = None) -> list[str]:
    """Problems that make exercises/ out of date with solutions/ (empty when up to date)."""
    root = root or repo_root()
    problems, expected = [], set()
    for solution in solution_notebooks(root):
        target = content_dir("exercises", root) / solution.name
        expected.add(target.name)
        if not target.exists():
            problems.append(f"missing: exercises/{target.name}")
        elif target.read_text(encoding="utf-8") != _text(exercise_notebook(solution)):
            problems.append(f"stale: exercises/{target.name}")
    for extra in sorted(content_dir("exercises", root).glob("*.ipynb")):
        if extra.name not in expected:
            problems.append(f"no solution for: exercises/{extra.name}")
    return problems


def generate(root: Path | None = None) -> list[Path]:
    """Write every exercise notebook; returns the paths written."""
    root = root or repo_root()
    out = content_dir("exercises", root)
    out.mkdir(exist_ok=True)
    written = []
    for solution in solution_notebooks(root):
        target = out / solution.name
        target.write_text(_text(exercise_notebook(solution)), encoding="utf-8")
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    """Command line: generate, or --check for staleness."""
    parser = argparse.ArgumentParser(prog="python -m autograd_course.challenge.generate", description=__doc__)
    parser.add_argument("--check", action="store_true", help="only report stale files; exit 1 if any")
    args = parser.parse_args(argv)
    if args.check:
        problems = stale_exercises()
        for p in problems:
            print(p)
        print(
            "exercises/ is up to date"
            if not problems
            else "run: python -m autograd_course.challenge.generate"
        )
        return 1 if problems else 0
    for path in generate():
        print(f"wrote {path.relative_to(repo_root())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
