"""Per-tensor |g| statistics on the device, read back to the host once."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

import torch

__all__ = [
    "GradStats",
    "abs_stats",
    "dense_values",
    "host_floats",
    "nonfinite_counts",
    "on_device",
    "total_norm",
]

GradStats = tuple[float, float]  # (mean |g|, max |g|)


def on_device(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    """The tensor on `device`, without a `.to()` call when it is already there."""
    return tensor if tensor.device == device else tensor.to(device)


def host_floats(scalars: Sequence[torch.Tensor]) -> list[float]:
    """0-dim tensors as Python floats (float64), gathered on the first one's device: one host read."""
    if not scalars:
        return []
    device = scalars[0].device
    return torch.stack([on_device(s, device).double() for s in scalars]).tolist()


def dense_values(tensor: torch.Tensor) -> torch.Tensor:
    """The stored values of a tensor: a sparse tensor's non-zeros, else the tensor."""
    t = tensor.detach()
    return t.coalesce().values() if t.is_sparse else t


def _accumulation_dtype(dtype: torch.dtype) -> torch.dtype:
    """float64 for double precision, else float32 (never half: it overflows)."""
    if dtype in (torch.float64, torch.complex128):
        return torch.float64
    return torch.float32


def _cpu_l1_linf(group: list[torch.Tensor]) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """Sum and max of |t| per tensor on the CPU, where the foreach L1/Linf norms are slow kernels.

    |t| is materialised one tensor at a time, never all at once. Tensor.sum adds in blocks
    (cascade summation), so a float32 sum keeps float32 accuracy where the sequential foreach
    norm loses it; half and bfloat16 are summed in float32, float64 in float64.
    """
    l1: list[torch.Tensor] = []
    linf: list[torch.Tensor] = []
    for t in group:
        absolute = t.abs()
        wide = _accumulation_dtype(absolute.dtype)
        l1.append(absolute.sum(dtype=wide))
        linf.append(absolute.amax().to(wide))
    return l1, linf


@torch.no_grad()
def abs_stats(tensors: Sequence[torch.Tensor]) -> list[GradStats]:
    """(mean |t|, max |t|) for every tensor, with one host read for all of them.

    The sums and maxima come from torch's foreach norms (ord 1 and ord inf) grouped by device
    and dtype, accumulated in float32 at least so half-precision sums cannot overflow; on the
    CPU, where those norms are slow, from each |t|'s sum and max (see _cpu_l1_linf).
    Max |t| is NaN or Inf exactly when t holds a NaN or an Inf, so it also decides finiteness.
    A tensor with no stored values (no elements, or a sparse tensor without non-zeros) gives 0.
    """
    if not tensors:
        return []
    groups: dict[tuple[torch.device, torch.dtype], list[int]] = defaultdict(list)
    values = [dense_values(t) for t in tensors]
    first = values[0].device
    zero = torch.zeros((), dtype=torch.float64, device=first)
    sums: list[torch.Tensor] = [zero] * len(values)
    maxes: list[torch.Tensor] = [zero] * len(values)
    for i, v in enumerate(values):
        if v.numel():  # the inf norm of nothing is an error in torch, and 0 here
            groups[(v.device, v.dtype)].append(i)
    for (device, dtype), idx in groups.items():
        group = [values[i] for i in idx]
        if device.type == "cpu":
            l1, linf = _cpu_l1_linf(group)
        else:
            if dtype.is_complex:  # |z| per element; the norms below then see real magnitudes
                group = [v.abs() for v in group]
            wide = _accumulation_dtype(dtype)
            l1 = torch._foreach_norm(group, 1, dtype=wide)
            linf = torch._foreach_norm(group, math.inf, dtype=wide)
        for j, i in enumerate(idx):
            sums[i], maxes[i] = l1[j], linf[j]
    flat = host_floats(sums + maxes)
    n = len(values)
    numels = [t.numel() for t in tensors]
    return [(flat[i] / numels[i] if numels[i] else 0.0, flat[n + i]) for i in range(n)]


@torch.no_grad()
def total_norm(tensors: Sequence[torch.Tensor], norm_type: float) -> torch.Tensor:
    """The norm of all tensors together as a 0-dim tensor on the first one's device (no host read)."""
    # get_total_norm's computation (foreach norms per device and dtype, then the norm of the
    # norms), except that half and bfloat16 accumulate in float32: finite gradients whose norm
    # exceeds 65504 must not get an infinite norm.
    values = [dense_values(t) for t in tensors]
    first = values[0].device if values else torch.device("cpu")
    groups: dict[tuple[torch.device, torch.dtype], list[torch.Tensor]] = defaultdict(list)
    for v in values:
        if v.numel():
            groups[(v.device, v.dtype)].append(v)
    norms: list[torch.Tensor] = []
    for (_, dtype), group in groups.items():
        low = dtype in (torch.float16, torch.bfloat16)
        norms.extend(torch._foreach_norm(group, norm_type, dtype=torch.float32 if low else None))
    if not norms:
        return torch.zeros((), device=first)
    return torch.linalg.vector_norm(torch.stack([on_device(n, first) for n in norms]), norm_type)


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
