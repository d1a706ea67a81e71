"""Part 1's hidden runs as notebook cells for a kernel that cannot import the course.

Like part 2 (fixcells.py): the kernel that runs part-1 answers sees the toolkit and torch, never the
course package, so the cells carry everything as text: the harness (proving/proofrun.py, its
source), the broken code of each hidden run (rendered here, compiled there under a fresh random file
name, the only one whose errors count as the code's), the seed and where to write. The grader judges
what it writes in its own process, against its own run of the same code (judging.py).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat

from autograd_course.proving import proofrun
from autograd_instructor.challenge.answer_source import AnswerSource
from autograd_instructor.challenge.catalogue import render
from autograd_instructor.challenge.hidden import broken_file, hidden_path, hidden_runs
from autograd_instructor.grading.fixcells import harness_cell
from autograd_instructor.grading.hangs import announcer_setup, earlier_cells_arg, marker_path

__all__ = ["HARNESS", "proof_apart", "proof_cells"]

HARNESS = "proofrun"  # the name the harness module has in the kernel


def proof_cells(sources: dict[tuple[str, int], AnswerSource], learner: str | None, export_dir: Path) -> list:
    """The harness cell (the doctor taken out of the toolkit), then one cell per part-1 answer and
    hidden run, the earlier cells it needs sent with it ([] when none is answered). An answer the
    screen flags runs too: the screen warns, the evidence decides."""
    calls = []
    for (ex_id, part), answer in sorted(sources.items()):
        if part != 1 or not answer.source:
            continue
        for k, (variant, seed) in enumerate(hidden_runs(learner, ex_id, 1)):
            out = str(hidden_path(export_dir, ex_id, 1, k))
            code, name = render(variant), broken_file()
            prelude = earlier_cells_arg(answer.prelude, marker_path(export_dir, ex_id, 1, k))
            args = f"{answer.source!r}, {code!r}, {name!r}, {seed}, {out!r}, {prelude}"
            call = f"_{HARNESS}.run_part1({args})"
            calls.append(nbformat.v4.new_code_cell(call))
    if not calls:
        return []
    setup = harness_cell(proofrun, HARNESS) + f"\n_{HARNESS}.no_doctor()\n" + announcer_setup()
    return [nbformat.v4.new_code_cell(setup), *calls]


def proof_apart(
    ex_id: str, learner: str | None, source: str | AnswerSource, export_dir: Path, timeout: float = 300
) -> None:
    """Part 1's hidden runs of one answer in a fresh Python process, with the cells the grader's
    kernel runs (tests: no kernel or sandbox), so nothing the answer does reaches this process."""
    answer = source if isinstance(source, AnswerSource) else AnswerSource(1, source)
    code = "\n".join(c.source for c in proof_cells({(ex_id, 1): answer}, learner, export_dir))
    subprocess.run([sys.executable, "-c", code], check=True, timeout=timeout, capture_output=True)
