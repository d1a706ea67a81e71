"""Which earlier cell a part's hidden run was running when the part's kernel stopped (timeout, death).

An answer may use names from earlier cells; its hidden run runs them first, in the same kernel. The
grader sends them wrapped in announced.py's `Announced`, which writes each cell's number to a file
beside the run's output as the cell starts. When the part times out (or its kernel dies), the record
names the cell that was running and its first line, from the grader's own copy of the cells: the
file only picks one of the numbers the grader sent. The caller redacts the sentence like any of the
learner's text (redact.py).
"""

from __future__ import annotations

from pathlib import Path

from autograd_instructor.challenge.answer_source import AnswerSource
from autograd_instructor.challenge.hidden import HIDDEN_RUNS, hidden_path
from autograd_instructor.grading import announced

__all__ = ["announcer_setup", "earlier_cells_arg", "marker_path", "stopped_in"]


def marker_path(export_dir: str | Path, ex_id: str, part: int, k: int) -> Path:
    """Where hidden run k of a part says which earlier cell it is running."""
    out = hidden_path(export_dir, ex_id, part, k)
    return out.with_name(out.name + ".cell")


def announcer_setup() -> str:
    """Lines of a set-up cell that make `_announced` in the kernel from announced.py's source."""
    source = Path(announced.__file__).read_text(encoding="utf-8")
    return (
        "import types as _types\n"
        "_announced = _types.ModuleType('announced')\n"
        f"exec(compile({source!r}, 'announced.py', 'exec'), _announced.__dict__)\n"
        "del _types"
    )


def earlier_cells_arg(prelude: list, marker: Path) -> str:
    """The earlier cells as the harness call's argument: announced, or [] when there are none."""
    cells = list(prelude)
    return f"_announced.Announced({cells!r}, {str(marker)!r})" if cells else "[]"


def _said(marker: Path) -> str:
    try:
        with open(marker, "rb") as f:
            return f.read(32).decode("ascii", "replace").strip()
    except OSError:
        return ""


def stopped_in(export_dir: Path, ex_id: str, part: int, answer: AnswerSource | None) -> str:
    """': cell N, which your answer uses, was still running (...)' when the part's first unfinished
    hidden run was in one of the answer's earlier cells; '' otherwise (the answer or the harness)."""
    cells = {int(n): code for n, code in answer.prelude} if answer is not None else {}
    for k in range(HIDDEN_RUNS):
        if not cells or hidden_path(export_dir, ex_id, part, k).exists():
            continue
        said = _said(marker_path(export_dir, ex_id, part, k))
        if not said.isdigit() or int(said) not in cells:
            return ""
        first = next((line.strip() for line in cells[int(said)].splitlines() if line.strip()), "")
        return f": cell {said}, which your answer uses, was still running (it starts `{first[:80]}`)"
    return ""
