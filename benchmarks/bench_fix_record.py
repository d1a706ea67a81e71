"""Benchmark: reading part 2's hidden-run records stacked (fixrun.packed) against one tensor per step.

A right answer of one exercise (tests/solved.py) has its part-2 hidden runs run once in this process,
as the grader's kernel runs them (fixcells.run_here), and their records are read back. Then, in turns,
each form is written from those records (torch.save; the stacked form packed first, as run_fix does,
the other a dict of tensors per step, each tensor its own copy, as the harness wrote it before), read
(torch.load; the stacked form through record.read_fix_record, its strict check and unpacking) and
the part judged from what was read (judging's own path, the replay included). Ratios stacked / per
step (below 1: the stacked form pays).

    .venv/bin/python benchmarks/bench_fix_record.py [--exercise D] [--repeat 7]
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import torch
from solved import solved_for

from autograd_course.fixing.fixrun import packed
from autograd_course.fixing.record import read_fix_record
from autograd_instructor.challenge.answer_source import answer_source
from autograd_instructor.challenge.hidden import HIDDEN_RUNS, hidden_path
from autograd_instructor.challenge.notebooks import challenge_cells
from autograd_instructor.grading import judging
from autograd_instructor.grading.fixcells import run_here


def _per_step(value: object) -> object:
    """A record in the form the harness wrote before: every tensor its own copy (no shared storage)."""
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, dict):
        return {k: _per_step(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_per_step(v) for v in value]
    return value


def _saved(record: object) -> bytes:
    buffer = io.BytesIO()
    torch.save(record, buffer)
    return buffer.getvalue()


def _records(ex_id: str) -> list[dict]:
    """The records of a right answer's hidden runs, as the judge reads them (a dict per step)."""
    nb = solved_for(None, ex_id)
    cells = [nb.cells[i].source for i, m in challenge_cells(nb) if m["role"] == "answer" and m["part"] == 2]
    with tempfile.TemporaryDirectory(prefix="bench-fix-record-") as tmp:
        run_here(ex_id, None, answer_source(cells[0], 2), Path(tmp))
        files = [hidden_path(tmp, ex_id, 2, k).read_bytes() for k in range(HIDDEN_RUNS)]
    return [_per_step(read_fix_record(data)) for data in files]


def _packed(record: dict) -> dict:
    return record | {key: packed(record[key]) for key in ("fix", "given")}


def _timed(ex_id: str, records: list[dict], write, read) -> tuple[float, float, float, str]:
    """(write, read, judge) seconds for one part's hidden runs, and the verdict's status."""
    start = time.perf_counter()
    files = [_saved(write(r)) for r in records]
    wrote = time.perf_counter()
    runs = [read(data) for data in files]
    loaded = time.perf_counter()
    judged = judging._judged_runs(ex_id, 2, None, runs)
    return wrote - start, loaded - wrote, time.perf_counter() - loaded, judged.verdict.status


def main() -> int:
    """Time both forms in turns; print the medians and the ratios."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--exercise", default="D")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    records = _records(args.exercise)
    forms = {
        "per step": (lambda r: r, lambda data: torch.load(io.BytesIO(data), weights_only=True)),
        "stacked": (_packed, read_fix_record),
    }
    times: dict[str, list[tuple[float, float, float]]] = {name: [] for name in forms}
    for _ in range(args.repeat):
        for name, (write, read) in forms.items():
            *seconds, status = _timed(args.exercise, records, write, read)
            if status != "passed":
                print(f"the right answer did not pass when read {name}: {status}")
                return 1
            times[name].append(tuple(seconds))
    sizes = {name: sum(len(_saved(write(r))) for r in records) for name, (write, _) in forms.items()}
    medians = {name: [statistics.median(t[i] for t in times[name]) for i in range(3)] for name in forms}
    print(f"exercise {args.exercise}, part 2: {HIDDEN_RUNS} hidden-run records, median of {args.repeat}")
    for name, (write, read, judge) in medians.items():
        print(
            f"{name:9s} write {write * 1000:6.1f} ms  read {read * 1000:6.1f} ms  "
            f"judge {judge * 1000:6.1f} ms  ({sizes[name]} bytes)"
        )
    old, new = medians["per step"], medians["stacked"]
    print(f"ratio stacked/per step: write {new[0] / old[0]:.2f}  read {new[1] / old[1]:.2f}  ", end="")
    print(f"read + judge {(new[1] + new[2]) / (old[1] + old[2]):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
