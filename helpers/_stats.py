"""Per-tensor |g| statistics on the device, read back to the host once."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

import torch

__all__ = ["GradStats", "abs_stats", "dense_values", "nonfinite_counts", "on_device"]

GradStats = tuple[float, float]  # (mean |g|, max |g|)


def on_device(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    """The tensor on `device`, without a `.to()` call when it is already there."""
    return tensor if tensor.device == device else tensor.to(device)


def dense_values(tensor: torch.Tensor) -> torch.Tensor:
    """The stored values of a tensor: a sparse tensor's non-zeros, else the tensor."""
    t = tensor.detach()
    return t.coalesce().values() if t.is_sparse else t


def _cpu_l1_linf(
    group: list[torch.Tensor], wide: torch.dtype
) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """Sum and max of |t| per tensor on the CPU, where foreach L1/Linf norms are slow kernels.

    |t| is materialised one tensor at a time (small, reused allocations), never all at once.
    """
    l1: list[torch.Tensor] = []
    linf: list[torch.Tensor] = []
    for t in group:
        absolute = t.abs()
        l1.append(absolute.sum(dtype=wide))
        linf.append(absolute.amax().to(wide))
    return l1, linf


@torch.no_grad()
def abs_stats(tensors: Sequence[torch.Tensor]) -> list[GradStats]:
    """(mean |t|, max |t|) for every tensor, with one host read for all of them.

    The sums and maxima come from torch's foreach norms (ord 1 and ord inf; on the CPU, where
    those are slow kernels, from |t|'s sum and max per tensor), grouped by device and dtype,
    accumulated in float32 at least so half-precision sums cannot overflow.
    Max |t| is NaN or Inf exactly when t holds a NaN or an Inf, so it also decides finiteness.
    """
    if not tensors:
        return []
    groups: dict[tuple[torch.device, torch.dtype], list[int]] = defaultdict(list)
    values = [dense_values(t) for t in tensors]
    for i, v in enumerate(values):
        groups[(v.device, v.dtype)].append(i)
    first = values[0].device
    sums: list[torch.Tensor | None] = [None] * len(values)
    maxes: list[torch.Tensor | None] = [None] * len(values)
    for (device, dtype), idx in groups.items():
        idx = [i for i in idx if values[i].numel()]  # empty tensors: 0.0 below, no reduction
        group = [values[i] for i in idx]
        wide = torch.float64 if dtype in (torch.float64, torch.complex128) else torch.float32
        if not group:
            continue
        if device.type == "cpu":
            l1, linf = _cpu_l1_linf(group, wide)
        else:
            l1 = torch._foreach_norm(group, 1, dtype=wide)
            linf = torch._foreach_norm(group, math.inf, dtype=wide)
        for j, i in enumerate(idx):
            sums[i], maxes[i] = l1[j], linf[j]
    zero = torch.zeros((), dtype=torch.float64, device=first)
    sums = [zero if s is None else s for s in sums]
    maxes = [zero if m is None else m for m in maxes]
    flat = torch.stack([on_device(s, first).double() for s in sums + maxes]).tolist()  # type: ignore[union-attr]
    n = len(values)
    numels = [t.numel() for t in tensors]
    return [(flat[i] / numels[i] if numels[i] else 0.0, flat[n + i] if numels[i] else 0.0) for i in range(n)]


@torch.no_grad()
def nonfinite_counts(tensors: Sequence[torch.Tensor]) -> list[tuple[int, int]]:
    """(NaN count, Inf count) for every tensor, with one host read."""
    if not tensors:
        return []
    values = [dense_values(t) for t in tensors]
    first = values[0].device
    counts = torch.stack(
        [on_device(torch.stack([torch.isnan(v).sum(), torch.isinf(v).sum()]), first) for v in values]
    ).tolist()
    return [(int(a), int(b)) for a, b in counts]
