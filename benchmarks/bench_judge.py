"""Benchmark: judging many parts one at a time against judging them in parallel threads.

`grade` judges each learner's parts in that learner's job thread, beside the other jobs; only the
trusted runs that seed torch's global RNG take turns (autograd_course/global_rng.py). This measures
that part of grading alone, without kernels: the hidden runs of each learner's right answers (both
parts of every exercise, tests/solved.py) are run once in this process, then judged one part after
another and then on --jobs threads, twice each in turn, the reference runs' caches emptied before each
pass, as a fresh grader meets them. Ratio threads / one at a time (below 1: parallel judging pays).

    .venv/bin/python benchmarks/bench_judge.py [--jobs 2] [--learners 2] [--exercises A,D]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from solved import solved_for

from autograd_instructor.challenge.answer_source import answer_source
from autograd_instructor.challenge.hidden import bug_shows, run_hidden
from autograd_instructor.challenge.notebooks import challenge_cells
from autograd_instructor.challenge.parts import broken_failures, broken_trace
from autograd_instructor.challenge.reference import trace_broken
from autograd_instructor.grading.fixcells import run_here
from autograd_instructor.grading.grade import judge_hidden


def _exported(folder: Path, learners: int, exercises: list[str]) -> list[tuple]:
    """(export folder, exercise, part, answer, learner) of each right answer, its hidden runs run."""
    cases = []
    for k in range(learners):
        for ex_id in exercises:
            learner, nb = f"learner{k}", solved_for(f"learner{k}", ex_id)
            for i, m in challenge_cells(nb):
                if m["role"] != "answer":
                    continue
                answer = answer_source(nb.cells[i].source, m["part"])
                out = folder / f"{learner}-{ex_id}-{m['part']}"
                out.mkdir()
                if m["part"] == 2:
                    run_here(ex_id, learner, answer, out)
                else:
                    run_hidden(ex_id, learner, 1, answer.source, str(out), answer.prelude)
                cases.append((out, ex_id, m["part"], answer, learner))
    return cases


def _judge_all(cases: list[tuple], jobs: int) -> tuple[float, list[str]]:
    for cached in (bug_shows, broken_trace, broken_failures, trace_broken):
        cached.cache_clear()
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        records = list(pool.map(lambda c: judge_hidden("nb", *c), cases))
    return time.perf_counter() - start, [r.status for r in records]


def main() -> int:
    """Run the hidden runs once, then time the judging both ways; print both and the ratio."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--learners", type=int, default=2)
    parser.add_argument("--exercises", default="A,D")
    args = parser.parse_args()
    if args.jobs < 2:
        parser.error("--jobs must be 2 or more: it is compared with one at a time")
    with tempfile.TemporaryDirectory(prefix="bench-judge-") as tmp:
        cases = _exported(Path(tmp), args.learners, args.exercises.split(","))
        times: dict[int, list[float]] = {1: [], args.jobs: []}
        for _ in range(2):
            for jobs in times:
                seconds, statuses = _judge_all(cases, jobs)
                times[jobs].append(seconds)
                if set(statuses) != {"passed"}:
                    print(f"not every part passed: {statuses}")
                    return 1
    one, many = min(times[1]), min(times[args.jobs])
    samples = {jobs: ", ".join(f"{t:.2f}" for t in seconds) for jobs, seconds in times.items()}
    print(f"parts judged:       {len(cases)} ({args.learners} learners x {args.exercises}, both parts)")
    print(f"one at a time:      {one:.2f} s  (best of {samples[1]})")
    print(f"{args.jobs} threads:          {many:.2f} s  (best of {samples[args.jobs]})")
    print(f"ratio threads/one:  {many / one:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
