"""How often each bug's reference fix ends above half its start loss, on random hidden seeds.

Why loss_falls is judged against the intended training's own run (fixcheck._fall_problem): this
counts the seeds where a fixed share of the start would fail the reference itself, and checks that
the reference passes every check of part 2 on each. Run: python benchmarks/sweep_loss_falls.py
[--seeds N] [--bugs N H] [--rng 0].
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from autograd_course.fixing.fixcheck import LOSS_DROP, true_loss
from autograd_course.harness_core import FIXABLE
from autograd_instructor.challenge import Outcome, Variant
from autograd_instructor.challenge.catalogue import BUGS
from autograd_instructor.challenge.exercise import fix_trace
from autograd_instructor.challenge.parts import judge_part2, reference_namespace, reference_reach
from autograd_instructor.challenge.variants import shapes


def sweep(bug: str, seeds: int, rng: random.Random) -> tuple[int, int, float]:
    """(seeds where the reference ends above LOSS_DROP of its start, seeds it fails, worst ratio)."""
    above, failed, worst = 0, 0, 0.0
    for _ in range(seeds):
        variant, seed = Variant(bug, rng.choice(shapes())), rng.randrange(1, 2**62)
        namespace = reference_namespace(variant, "<reference fix>")
        trace = fix_trace(variant, {f: namespace[g] for f, g in FIXABLE.items()}, seed, "cpu")
        ratio = true_loss(seed, trace) / true_loss(seed, trace, step=0)
        above += ratio > LOSS_DROP
        worst = max(worst, ratio)
        verdict, _ = judge_part2("M1", variant, trace, seed, trace.get("given"))
        if verdict.outcome is not Outcome.CORRECT:
            failed += 1
            print(f"  {variant} seed {seed}: {verdict.message}", file=sys.stderr)
        assert reference_reach(variant, seed) == true_loss(seed, trace)
    return above, failed, worst


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=50, help="random hidden seeds per bug (default 50)")
    parser.add_argument("--bugs", nargs="*", default=sorted(BUGS), help="catalogue keys (default: all)")
    parser.add_argument("--rng", type=int, default=0, help="the sweep's own seed (default 0)")
    args = parser.parse_args()
    unknown = [b for b in args.bugs if b not in BUGS]
    if unknown or args.seeds < 1:
        print(
            f"expected --seeds >= 1 and bugs among {sorted(BUGS)}, got {args.seeds} and {unknown}",
            file=sys.stderr,
        )
        return 2
    rng, failures = random.Random(args.rng), 0
    print(f"bug  seeds  above {LOSS_DROP:.0%} of start  worst ratio  reference fails")
    for bug in args.bugs:
        started = time.perf_counter()
        above, failed, worst = sweep(bug, args.seeds, rng)
        failures += failed
        took = time.perf_counter() - started
        print(f"{bug:>3}  {args.seeds:5}  {above:17}  {worst:11.3f}  {failed:15}   ({took:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
