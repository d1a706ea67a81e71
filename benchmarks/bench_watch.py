"""Benchmark: what the harness's watch costs part 2's fixed training (harness_core.watched and swallowed).

One exercise's reference fix, trained as a hidden run trains it (fixrun.collect_fix_trace: FIX_STEPS
steps, every weight and gradient copied), plain, under the audit watch, and under the watch with the
trace of the learner's own frames, alternated in this one process; medians compared. Target: the
watch, on for every answer, within 1.2x the plain training. The trace (about 2.5x here: a Python call
for every Python call of the training) is printed beside it; it runs only for answers whose code has
an exception handler at all (harness_core.may_catch), so an answer without try or with pays nothing.

    .venv/bin/python benchmarks/bench_watch.py [--exercise A] [--repeat 7]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from collections.abc import Callable

import torch

from autograd_course.fixing.fixrun import collect_fix_trace
from autograd_course.harness_core import ANSWER_FILE, FIXABLE, given_namespace, reached, swallowed, watched
from autograd_instructor.challenge import PARTS, variant_for
from autograd_instructor.challenge.catalogue import render

TARGET = 1.2


def _functions(ex_id: str) -> tuple[Callable, Callable]:
    """(setup, step) of the broken code with the reference fix in place, the fix compiled as an answer."""
    variant = variant_for(None, ex_id)
    ns = given_namespace(render(variant), "<broken code>", 0)
    exec(compile(PARTS[2]._solution(variant), ANSWER_FILE, "exec"), ns)
    ns |= {FIXABLE[n]: ns[n] for n in FIXABLE if n in ns}
    return ns["broken_setup"], ns["broken_step"]


def _once(setup: Callable, step: Callable, how: str) -> float:
    watch = watched() if how != "plain" else contextlib.nullcontext()
    trace = swallowed() if how == "watched and traced" else contextlib.nullcontext([])
    start = time.perf_counter()
    with watch, trace, torch.random.fork_rng(devices=[]):
        collect_fix_trace(setup, step, 0, "cpu")
    return time.perf_counter() - start


def main() -> int:
    """Time the three ways; print each median and the ratios."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--exercise", default="A")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    setup, step = _functions(args.exercise)
    ways = ("plain", "watched", "watched and traced")
    _once(setup, step, "watched and traced")  # torch's lazy set-up, the hook installed
    times: dict[str, list[float]] = {w: [] for w in ways}
    for _ in range(args.repeat):
        for way in ways:
            times[way].append(_once(setup, step, way))
    assert reached() == [], "the reference fix reached for something"
    plain = statistics.median(times["plain"])
    for way in ways:
        median = statistics.median(times[way])
        print(f"{way:>20}: {median * 1000:8.1f} ms  ({median / plain:.2f}x plain)")
    watch = statistics.median(times["watched"]) / plain
    print(f"the watch, target <= {TARGET}x: {'met' if watch <= TARGET else 'NOT met'}")
    return 0 if watch <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
