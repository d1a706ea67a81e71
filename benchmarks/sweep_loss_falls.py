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

import torch

from autograd_course.fixing.fixcheck import LOSS_DROP, final_true_loss
from autograd_course.harness_core import FIXABLE
from autograd_instructor.challenge import Outcome, Variant
from autograd_instructor.challenge.catalogue import BUGS, TinyNet, unrecorded_fixed_code
from autograd_instructor.challenge.exercise import fix_trace
from autograd_instructor.challenge.parts import judge_part2, reference_reach
from autograd_instructor.challenge.variants import shapes
from helpers import make_tiny_problem


def _start_loss(seed: int, trace: dict) -> float:
    inputs, targets = make_tiny_problem(seed)
    model = TinyNet()
    with torch.no_grad():
        for p, name in zip(model.parameters(), trace["names"], strict=True):
            p.copy_(trace["params"][0][name])
        return float(torch.nn.functional.mse_loss(model(inputs), targets))


def sweep(bug: str, seeds: int, rng: random.Random) -> tuple[int, int, float]:
    """(seeds where the reference ends above LOSS_DROP of its start, seeds it fails, worst ratio)."""
    above, failed, worst = 0, 0, 0.0
    for _ in range(seeds):
        variant, seed = Variant(bug, rng.choice(shapes())), rng.randrange(1, 2**62)
        namespace = {"torch": torch, "F": torch.nn.functional, "TinyNet": TinyNet}
        exec(compile(unrecorded_fixed_code(variant), "<reference fix>", "exec"), namespace)
        trace = fix_trace(variant, {f: namespace[g] for f, g in FIXABLE.items()}, seed, "cpu")
        ratio = final_true_loss(seed, trace) / _start_loss(seed, trace)
        above += ratio > LOSS_DROP
        worst = max(worst, ratio)
        verdict, _ = judge_part2("M1", variant, trace, seed, trace.get("given"))
        if verdict.outcome is not Outcome.CORRECT:
            failed += 1
            print(f"  {variant} seed {seed}: {verdict.message}", file=sys.stderr)
        assert reference_reach(variant, seed) == final_true_loss(seed, trace)
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
