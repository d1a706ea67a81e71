"""Support code for lessons 07-14 that is not the lesson: anomaly-warning parsing, timing, plots."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Any

__all__ = [
    "forward_lines",
    "interleaved_seconds",
    "plot_curves",
    "plot_fd_errors",
    "plot_layer_magnitudes",
    "plot_relative_curves",
    "run_with_anomaly",
]


def forward_lines(caught: Sequence[warnings.WarningMessage]) -> list[str]:
    """Per anomaly warning, the innermost source line of user code in its forward traceback."""
    found: list[str] = []
    for w in caught:
        lines = str(w.message).splitlines()
        frames = [
            nxt.strip()
            for line, nxt in pairwise(lines)
            if line.strip().startswith("File ") and "site-packages" not in line and "<frozen" not in line
        ]
        found += frames[-1:]
    return found


def run_with_anomaly(fn: Callable[[], object]) -> tuple[str | None, list[str]]:
    """Run fn under detect_anomaly; return the error's first line (or None) and the forward lines."""
    import torch

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with torch.autograd.detect_anomaly():
                fn()
        except RuntimeError as error:
            return str(error).splitlines()[0], forward_lines(caught)
    return None, forward_lines(caught)


def interleaved_seconds(runs: dict[str, Callable[[], object]], repeats: int = 7) -> dict[str, list[float]]:
    """Seconds per call of each function, alternating between them `repeats` times (noise hits all alike)."""
    import time

    if repeats < 1 or not runs:
        raise ValueError(f"expected at least one function and repeats >= 1, got {len(runs)} and {repeats}")
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, fn in runs.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return times


def plot_relative_curves(
    norms: Sequence[float], losses: Sequence[float], norm_step: int, loss_step: int, lr: float
) -> None:
    """Lesson 10: gradient norm and loss relative to step 0 on a log scale, with their 10x crossings."""
    import matplotlib.pyplot as plt

    steps = range(len(losses))
    _fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.semilogy(steps, [v / norms[0] for v in norms], label="gradient norm / step 0", color="tab:red")
    ax.semilogy(steps, [v / losses[0] for v in losses], label="loss / step 0", color="tab:blue")
    ax.axhline(10, color="grey", linestyle=":", label="10x")
    ax.axvline(norm_step, color="tab:red", linestyle="--", linewidth=1)
    ax.axvline(loss_step, color="tab:blue", linestyle="--", linewidth=1)
    ax.set_xlim(0, loss_step + 6)
    ax.set_ylim(1e-1, 1e4)
    ax.set_xlabel("step")
    ax.set_title(f"lr={lr}: the norm crosses 10x at step {norm_step}, the loss at {loss_step}")
    ax.legend(fontsize=8)
    plt.tight_layout()
    plt.show()


def plot_curves(
    losses: Sequence[float], norms: Sequence[float], title: str, cap: float | None = None
) -> None:
    """Lesson 10: loss and gradient norm per step, side by side, log scale; a dotted line at the clip cap."""
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(8, 2.8))
    left.semilogy(losses, color="tab:blue")
    left.set_title("loss")
    right.semilogy(norms, color="tab:red")
    right.set_title("gradient norm (before clipping)")
    if cap is not None:
        right.axhline(cap, color="grey", linestyle=":")
    for ax in (left, right):
        ax.set_xlabel("step")
    fig.suptitle(title, fontsize=10)
    plt.tight_layout()
    plt.show()


def plot_fd_errors(
    eps_values: Sequence[float], errors: dict[Any, Sequence[float]], default_eps: float
) -> None:
    """Lesson 12: worst finite-difference error against epsilon, one line per dtype, log-log."""
    import matplotlib.pyplot as plt

    _fig, ax = plt.subplots(figsize=(5.5, 3.2))
    for dtype, values in errors.items():
        ax.loglog(eps_values, values, marker="o", label=str(dtype).replace("torch.", ""))
    ax.axvline(default_eps, color="grey", linestyle=":", label="gradcheck's default eps")
    ax.set_xlabel("ε")
    ax.set_ylabel("worst error")
    ax.set_title("central differences: truncation vs rounding")
    ax.legend(fontsize=8)
    plt.tight_layout()
    plt.show()


def plot_layer_magnitudes(names: Sequence[str], rms: Sequence[float], norm: Sequence[float]) -> None:
    """Lesson 13: per-layer gradient RMS (a typical element) and norm (the whole tensor), log scale."""
    import matplotlib.pyplot as plt

    _fig, ax = plt.subplots(figsize=(5.5, 2.8))
    ax.bar(list(names), list(rms), label="RMS of grad (a typical element)", color="tab:blue")
    ax.scatter(list(names), list(norm), label="norm of grad (the whole tensor)", color="tab:red", zorder=3)
    ax.set_yscale("log")
    ax.set_ylabel("gradient size")
    ax.set_title("per-layer gradient magnitudes (log scale)")
    ax.legend(fontsize=8)
    plt.tight_layout()
    plt.show()
