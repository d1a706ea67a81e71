"""Ratio benchmarks of the toolkit against what people use today, in one process, interleaved.

Run: .venv/bin/python benchmarks/bench_toolkit.py [--reps 7] [--batch 64] [--threads 1]

Model: 100 x Linear(256, 256), 200 parameter tensors. Every candidate runs once per
repetition, in turn, so load on the machine hits them alike; each figure is the median over
the repetitions and each ratio is against a baseline measured in the same repetitions.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from helpers import (
    classify_parameter_gradients,
    count_host_syncs,
    diagnose,
    gradient_report,
    watch_non_finite,
)

__all__ = ["main"]


def build(batch: int) -> tuple[nn.Module, torch.optim.Optimizer, Callable[[], torch.Tensor]]:
    """The model, its optimizer and one plain training step."""
    torch.manual_seed(0)
    model = nn.Sequential(*[nn.Linear(256, 256) for _ in range(100)])
    # Norm-preserving weights: with the default init the gradients of 100 stacked layers vanish
    # (down to 1e-27), no update moves the first layers, and diagnose rightly stops at step 1.
    for layer in model:
        nn.init.orthogonal_(layer.weight)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    x, y = torch.randn(batch, 256), torch.randn(batch, 256)

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        return loss

    return model, optimizer, step


def item_loop(model: nn.Module) -> list[tuple[str, bool, float, float]]:
    """The post's style: one .item() per question per parameter."""
    rows = []
    for name, param in model.named_parameters():
        if param.grad is not None:
            g = param.grad
            finite = torch.isfinite(g).all().item()
            rows.append((name, finite, g.abs().mean().item(), g.abs().max().item()))
    return rows


def total_norm(model: nn.Module) -> float:
    """torch's own single L2 pass over every gradient, read once."""
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    return float(torch.nn.utils.get_total_norm(grads, foreach=True))


def measure(candidates: dict[str, Callable[[], object]], reps: int, inner: int) -> dict[str, float]:
    """Median seconds per call of each candidate, interleaved repetition by repetition."""
    for fn in candidates.values():
        fn()  # warm up
    times: dict[str, list[float]] = {name: [] for name in candidates}
    for _ in range(reps):
        for name, fn in candidates.items():
            start = time.perf_counter()
            for _ in range(inner):
                fn()
            times[name].append((time.perf_counter() - start) / inner)
    return {name: statistics.median(ts) for name, ts in times.items()}


def host_reads(fn: Callable[[], object]) -> int:
    """Host reads of one call, counted by count_host_syncs."""
    with count_host_syncs() as counter:
        fn()
    return counter.count


def table(title: str, medians: dict[str, float], base: str, reads: dict[str, int]) -> str:
    """One block of the results: time, ratio to the baseline, host reads."""
    lines = [
        f"\n{title} (ratio against {base})",
        f"{'candidate':<44} {'median ms':>10} {'ratio':>7} {'reads':>6}",
    ]
    for name, seconds in medians.items():
        lines.append(f"{name:<44} {seconds * 1e3:>10.3f} {seconds / medians[base]:>6.2f}x {reads[name]:>6}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run every benchmark and print the figures and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7, help="repetitions (the median is reported)")
    parser.add_argument("--batch", type=int, default=64, help="batch size of the training step")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (1 keeps noise low)")
    args = parser.parse_args(argv)
    if args.reps < 1 or args.batch < 1 or args.threads < 1:
        parser.error("--reps, --batch and --threads must be >= 1")
    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore", message="Anomaly Detection has been enabled")
    model, optimizer, step = build(args.batch)
    step()
    print(
        f"torch {torch.__version__}, {args.threads} thread(s), 100 x Linear(256, 256) = "
        f"{len(list(model.parameters()))} parameter tensors, batch {args.batch}, median of {args.reps}"
    )

    reports: dict[str, Callable[[], object]] = {
        "per-parameter .item() loop (the post)": lambda: item_loop(model),
        "get_total_norm(foreach=True) + 1 read": lambda: total_norm(model),
        "gradient_report": lambda: gradient_report(model),
        "classify_parameter_gradients": lambda: classify_parameter_gradients(model, optimizer),
    }
    medians = measure(reports, args.reps, inner=5)
    reads = {name: host_reads(fn) for name, fn in reports.items()}
    loop, norm = (
        medians["per-parameter .item() loop (the post)"],
        medians["get_total_norm(foreach=True) + 1 read"],
    )
    print(table("Gradient reports", medians, "per-parameter .item() loop (the post)", reads))
    for name in ("gradient_report", "classify_parameter_gradients"):
        print(
            f"  {name}: {medians[name] / loop:.2f}x the loop (target <= 0.5), "
            f"{medians[name] / norm:.2f}x get_total_norm (target <= 4), {reads[name]} host read(s) (target 1)"
        )

    def watched() -> None:
        with watch_non_finite(model):
            step()

    def anomaly() -> None:
        with torch.autograd.detect_anomaly():
            step()

    steps: dict[str, Callable[[], object]] = {
        "plain step": step,
        "step under watch_non_finite": watched,
        "step under detect_anomaly": anomaly,
    }
    medians = measure(steps, args.reps, inner=3)
    reads = {name: host_reads(fn) for name, fn in steps.items()}
    print(table("One training step", medians, "plain step", reads))
    plain = medians["plain step"]
    print(
        f"  watch_non_finite: {medians['step under watch_non_finite'] / plain:.2f}x the plain step "
        f"(target <= 1.5), {reads['step under watch_non_finite']} host reads (target 2); "
        f"detect_anomaly: {medians['step under detect_anomaly'] / plain:.2f}x"
    )

    def two_steps() -> None:
        step()
        step()

    verdict = diagnose(step, model, optimizer, steps=2)
    assert verdict.ok, f"the benchmark's own step must be healthy:\n{verdict}"
    doctor: dict[str, Callable[[], object]] = {
        "two plain steps": two_steps,
        "diagnose(steps=2)": lambda: diagnose(step, model, optimizer, steps=2),
    }
    medians = measure(doctor, args.reps, inner=1)
    reads = {name: host_reads(fn) for name, fn in doctor.items()}
    print(table("The doctor", medians, "two plain steps", reads))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
