"""Benchmark: `autograd-course grade --jobs 2` on 24 notebooks against the papermill floor.

The floor is the time papermill takes to run a one-cell `import torch` notebook in a fresh kernel,
times the number of notebooks, run one after another: what any grader that gives each notebook a
fresh kernel must pay (bench_run.floor_once). The class is 3 learners x the 8 solution notebooks,
each answered for that learner's own variant (tests/solved.py: every part passes), graded in the
sandbox the machine offers. Floor samples before and after the
grading (median), in this one process. Target: grade / floor <= 0.5.

    .venv/bin/python benchmarks/bench_grade.py [--jobs 2] [--learners 3] [--repeat 3]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import nbformat
from bench_run import floor_once
from solved import solved_for

from autograd_course.course import content_dir
from autograd_course.execution.sandbox import choose_sandbox
from autograd_instructor.grading.grade import Submission, grade_folder

TARGET = 0.5


def main() -> int:
    """Measure the floor and the grading; print both and the ratio."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--learners", type=int, default=3)
    parser.add_argument(
        "--repeat", type=int, default=3, help="floor samples before the grading (one more after)"
    )
    parser.add_argument("--sandbox", default="auto")
    args = parser.parse_args()
    logging.getLogger("papermill").addHandler(logging.NullHandler())
    logging.getLogger("papermill").propagate = False
    solutions = sorted(content_dir("solutions").glob("*.ipynb"))
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as tmp:
        folder = Path(tmp)
        subs = []
        for k in range(args.learners):
            for nb in solutions:
                target = folder / "subs" / f"learner{k}" / nb.name
                target.parent.mkdir(parents=True, exist_ok=True)
                nbformat.write(solved_for(f"learner{k}", nb.name.split("_")[0]), target)
                subs.append(Submission(f"learner{k}", f"learner{k}/{nb.name}", target, learner=f"learner{k}"))
        sandbox = choose_sandbox(args.sandbox, hidden=[folder / "subs"])
        floor_once(folder)  # warm-up: first imports and disk cache, not counted
        samples = [floor_once(folder, shutdown_kernel="immediate") for _ in range(args.repeat)]
        start = time.perf_counter()
        records = grade_folder(subs, jobs=args.jobs, timeout=300, progress=False, sandbox=sandbox)
        grade_s = time.perf_counter() - start
        samples.append(floor_once(folder, shutdown_kernel="immediate"))
    one = statistics.median(samples)
    floor = one * len(subs)
    statuses = {s: sum(r.status == s for r in records) for s in {r.status for r in records}}
    print(f"notebooks:          {len(subs)} ({args.learners} x {len(solutions)}), sandbox {sandbox.mode}")
    print(f"parts:              {statuses}")
    print(
        f"import torch cell:  {one:.2f} s median of {len(samples)} ({', '.join(f'{s:.2f}' for s in samples)})"
    )
    print(f"floor:              {floor:.1f} s  ({len(subs)} x {one:.2f} s)")
    print(f"grade --jobs {args.jobs}:     {grade_s:.1f} s  ({grade_s / len(subs):.2f} s per notebook)")
    print(f"ratio grade/floor:  {grade_s / floor:.2f}  (target <= {TARGET})")
    per_nb = grade_s / len(subs)
    print(f"300 learners x 8:   {300 * 8 * per_nb / 3600:.1f} h on this machine at --jobs {args.jobs}")
    return 0 if set(statuses) == {"passed"} else 1


if __name__ == "__main__":
    sys.exit(main())
