"""Part 2's hidden runs as notebook cells for a kernel that cannot import the course.

The kernel that runs part-2 answers sees the toolkit and torch, never the course package (the
sandbox hides it: no catalogue, reference, draw or grader to import). So everything it needs is
sent in the cells as plain text: the run's harness (fixing/fixrun.py and harness_core.py, their
source), the broken code of each hidden run (rendered here, compiled there under a fresh random file
name), the seed and where to write. What it writes is replayed by the grader in its own process (judging.py).
"""

from __future__ import annotations

import secrets
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import nbformat

from autograd_course import harness_core
from autograd_course.fixing import fixrun
from autograd_instructor.challenge.answer_source import AnswerSource
from autograd_instructor.challenge.catalogue import render
from autograd_instructor.challenge.hidden import hidden_path, hidden_runs
from autograd_instructor.grading.hangs import announcer_setup, earlier_cells_arg, marker_path

__all__ = ["HARNESS", "fix_cells", "harness_cell", "run_apart", "run_here"]

HARNESS = "fixrun"  # the name the harness module has in the kernel


def harness_cell(module: ModuleType, name: str) -> str:
    """A cell that makes the module `_<name>` in the kernel from the module's source text (the kernel
    cannot import the course; the module imports only torch, the toolkit, the standard library and
    harness_core). harness_core's source is made first, under its own name in sys.modules while the
    harness is made, so the harness imports it as it does anywhere; then that name is gone again (an
    answer finds no course module there), the harness holding what it imported."""
    core, source = harness_core.__name__, Path(module.__file__).read_text(encoding="utf-8")
    core_source = Path(harness_core.__file__).read_text(encoding="utf-8")
    return (
        "import sys as _sys, types as _types\n"
        f"_core = _types.ModuleType({core!r})\n"
        f"exec(compile({core_source!r}, 'harness_core.py', 'exec'), _core.__dict__)\n"
        f"_before, _sys.modules[{core!r}] = _sys.modules.get({core!r}), _core\n"
        f"_{name} = _types.ModuleType({name!r})\n"
        "try:\n"
        f"    exec(compile({source!r}, {name + '.py'!r}, 'exec'), _{name}.__dict__)\n"
        "finally:\n"
        f"    del _sys.modules[{core!r}]\n"
        f"    _sys.modules.update({{{core!r}: _before}} if _before is not None else {{}})\n"
        "del _sys, _types, _core, _before"
    )


def fix_cells(sources: dict[tuple[str, int], AnswerSource], learner: str | None, export_dir: Path) -> list:
    """The harness cell, then one cell per part-2 answer and hidden run, the earlier cells it needs
    sent with it ([] when none is answered)."""
    calls = []
    for (ex_id, part), answer in sorted(sources.items()):
        if part != 2 or not answer.source:
            continue
        for k, (variant, seed) in enumerate(hidden_runs(learner, ex_id, 2)):
            out = str(hidden_path(export_dir, ex_id, 2, k))
            name, code = f"<broken code {secrets.token_hex(8)}>", render(variant)
            prelude = earlier_cells_arg(answer.prelude, marker_path(export_dir, ex_id, 2, k))
            call = f"_fixrun.run_fix({answer.source!r}, {code!r}, {name!r}, {seed}, {out!r}, {prelude})"
            calls.append(nbformat.v4.new_code_cell(call))
    setup = harness_cell(fixrun, HARNESS) + "\n" + announcer_setup()
    return [nbformat.v4.new_code_cell(setup), *calls] if calls else []


def run_here(ex_id: str, learner: str | None, source: str | AnswerSource, export_dir: Path) -> None:
    """Part 2's hidden runs of one answer in this process (tests; no sandbox, the course importable)."""
    answer = source if isinstance(source, AnswerSource) else AnswerSource(2, source)
    for k, (variant, seed) in enumerate(hidden_runs(learner, ex_id, 2)):
        name, out = f"<broken code {secrets.token_hex(8)}>", str(hidden_path(export_dir, ex_id, 2, k))
        fixrun.run_fix(answer.source, render(variant), name, seed, out, answer.prelude)


def run_apart(
    ex_id: str, learner: str | None, source: str | AnswerSource, export_dir: Path, timeout: float = 300
) -> None:
    """Part 2's hidden runs of one answer in a fresh Python process (tests: what the grader's kernel
    runs, without a kernel or sandbox), so what the answer patches never reaches this process."""
    answer = source if isinstance(source, AnswerSource) else AnswerSource(2, source)
    code = "\n".join(c.source for c in fix_cells({(ex_id, 2): answer}, learner, export_dir))
    subprocess.run([sys.executable, "-c", code], check=True, timeout=timeout, capture_output=True)
