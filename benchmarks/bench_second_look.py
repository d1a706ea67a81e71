"""Why a report over all-zero or overflowing float32 gradients costs more than 2x get_total_norm.

    .venv/bin/python benchmarks/bench_second_look.py [--reps 15] [--threads N] [--clock wall|process]

By default torch's thread count and wall-clock time, as users meet them.

A float32 norm that reads 0 or inf leaves the gradient's elements open (all zero, or all below
2.6e-23; finite above 1.8e19, or Inf), so the report looks again (helpers._tuned_norms.second_look).
This times three designs of that look on the weight gradients of the deep stacks of
bench_toolkit.relu_stack_grads, kernels and their Python only (no rows, no display), each as a
ratio to get_total_norm in the same repetitions:

- the report's: every norm first, one host read, then a second pass over the doubtful tensors;
- decide each tensor at once: read its norm, look again while it is still in cache (a host read
  per tensor: on a GPU, a stall per tensor);
- a byte test beside every norm, whatever it reads (no extra read; every report pays it).

Each design's norms are checked against float64 norms before it is timed.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

import torch
from bench_toolkit import CLOCKS, load, ratios, relu_stack_grads, timings

from helpers._tuned_norms import TINY_NORM, norms, second_look, to_look_at

KINDS = {"vanish": "vanish", "explode": "explode", "overflow": "overflow", "zeros": "all zero"}
_DOWN = 2.0**-100


def the_reports(grads: list[torch.Tensor]) -> list[float]:
    """The report's design: norms, one read, then second_look on what to_look_at picks."""
    measured = norms(grads)
    doubtful = to_look_at(grads, measured)
    looked = second_look([grads[i] for i in doubtful], [measured[i] for i in doubtful])
    for i, (_, _, norm) in zip(doubtful, looked):
        measured[i] = norm
    return measured


def at_once(grads: list[torch.Tensor]) -> list[float]:
    """Each norm read as soon as it is made; a doubtful tensor measured again while in cache."""
    out = []
    for g in grads:
        n = torch.linalg.vector_norm(g).item()
        if n == 0.0 and not g.view(torch.uint8).max().item():
            out.append(0.0)
        elif n == math.inf:
            out.append(torch.linalg.vector_norm(g * _DOWN).item() / _DOWN)
        elif n < TINY_NORM:
            out.append(torch.linalg.vector_norm(g.double()).item())
        else:
            out.append(n)
    return out


def bytes_beside(grads: list[torch.Tensor]) -> list[float]:
    """A byte test made beside every norm, read with them: a norm of 0 is then proven or not."""
    pairs = [(torch.linalg.vector_norm(g).double(), g.view(torch.uint8).max().double()) for g in grads]
    numbers = torch.stack([torch.stack(p) for p in pairs]).tolist()
    out = [n for n, _ in numbers]
    again = [i for i, (n, nonzero) in enumerate(numbers) if not TINY_NORM <= n < math.inf and (n or nonzero)]
    # a 0 the byte test did not prove goes to second_look as tiny: measured in float64, not tested again
    looked = second_look([grads[i] for i in again], [out[i] or math.ulp(0.0) for i in again])
    for i, (_, _, norm) in zip(again, looked):
        out[i] = norm
    return out


DESIGNS: dict[str, Callable[[list[torch.Tensor]], list[float]]] = {
    "the report's: all norms, 1 read, second pass": the_reports,
    "decide each at once (a read per tensor)": at_once,
    "byte test beside every norm": bytes_beside,
}


def check(grads: list[torch.Tensor]) -> None:
    """Every design gives the float64 norm of every gradient (to float32 precision)."""
    exact = [torch.linalg.vector_norm(g.double()).item() for g in grads]
    for name, design in DESIGNS.items():
        for got, want in zip(design(grads), exact):
            assert math.isclose(got, want, rel_tol=1e-5, abs_tol=0.0), (name, got, want)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=15, help="interleaved repetitions (default 15)")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (default 0: torch's default)")
    parser.add_argument("--clock", choices=tuple(CLOCKS), default="wall", help="wall (default) or process")
    args = parser.parse_args(argv)
    if args.reps < 1 or args.threads < 0:
        parser.error("--reps must be >= 1, --threads >= 0")
    if args.threads:
        torch.set_num_threads(args.threads)
    base = "get_total_norm + 1 read"
    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} thread(s), {args.clock} clock, median ratio "
        f"of {args.reps} repetitions; {load('before')}"
    )
    print(f"{'gradients':<10} {'design':<48} {'ratio':>7}")
    for kind, title in KINDS.items():
        grads = [g for g in relu_stack_grads(kind) if g.dim() == 2]  # the 100 weight gradients
        check(grads)
        candidates: dict[str, Callable[[], object]] = {
            base: lambda g=grads: torch.nn.utils.get_total_norm(g, foreach=True).item(),
            **{name: (lambda d=design, g=grads: d(g)) for name, design in DESIGNS.items()},
        }
        relative = ratios(timings(candidates, args.reps, inner=2, clock=CLOCKS[args.clock]), base)
        for name in DESIGNS:
            print(f"{title:<10} {name:<48} {relative[name]:>6.2f}x")
    print(load("after"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
