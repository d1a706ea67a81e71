"""Per-tensor statistics on the device, read back to the host once; the one NaN/Inf counter."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

import torch

__all__ = [
    "abs_max",
    "abs_stats",
    "count_nonfinite",
    "dense_values",
    "host_floats",
    "nonfinite_counts",
    "on_device",
    "total_norm",
]


def on_device(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    """The tensor on `device`, without a `.to()` call when it is already there."""
    return tensor if tensor.device == device else tensor.to(device)


def host_floats(scalars: Sequence[torch.Tensor]) -> list[float]:
    """0-dim tensors as Python floats (float64), gathered on the first one's device: one host read."""
    if not scalars:
        return []
    device, dtype = scalars[0].device, scalars[0].dtype
    if all(s.device == device and s.dtype == dtype for s in scalars):  # the common case: one stack
        return torch.stack(list(scalars)).double().tolist()
    return torch.stack([on_device(s, device).double() for s in scalars]).tolist()


def dense_values(tensor: torch.Tensor) -> torch.Tensor:
    """The stored values of a tensor: a sparse tensor's non-zeros, else the tensor."""
    t = tensor.detach()
    return t.coalesce().values() if t.is_sparse else t


def count_nonfinite(tensor: torch.Tensor) -> torch.Tensor:
    """[NaN count, Inf count] of a tensor's elements as a 1-dim int64 tensor on its device.

    The one NaN/Inf counter of the toolkit. Counts never overflow (integer sums of booleans).
    A complex element counts once: as NaN when either part is NaN, else as Inf when either
    part is infinite, so nan + inf <= numel for every dtype.
    """
    t = dense_values(tensor)
    if not (t.is_floating_point() or t.is_complex()) or t.numel() == 0:
        return torch.zeros(2, dtype=torch.int64, device=t.device)
    nan = torch.isnan(t).sum()
    bad = t.numel() - torch.isfinite(t).sum()
    return torch.stack([nan, bad - nan])


@torch.no_grad()
def nonfinite_counts(tensors: Sequence[torch.Tensor]) -> list[tuple[int, int]]:
    """(NaN count, Inf count) for every tensor, with one host read."""
    if not tensors:
        return []
    first = tensors[0].device
    counts = torch.stack([on_device(count_nonfinite(t), first) for t in tensors]).tolist()
    return [(int(a), int(b)) for a, b in counts]


def abs_max(tensor: torch.Tensor) -> torch.Tensor:
    """max |t| as a 0-dim tensor on t's device: NaN when t holds a NaN, Inf when an Inf, else finite.

    One pass, no temporary (aminmax), so it never overflows and never allocates a copy of t.
    A complex tensor is measured by |z| in double precision (a copy; finite exactly when z is).
    A tensor with no stored values gives 0.
    """
    v = dense_values(tensor)
    if v.is_complex():
        return v.to(torch.complex128).abs().amax() if v.numel() else torch.zeros((), device=v.device)
    if v.numel() == 0:
        return torch.zeros((), dtype=v.dtype if v.is_floating_point() else torch.float32, device=v.device)
    if not v.is_floating_point():
        v = v.float()
    low, high = torch.aminmax(v)
    return torch.maximum(-low, high).abs()  # abs: +0.0, never -0.0, for an all-zero tensor


def _accumulation_dtype(dtype: torch.dtype) -> torch.dtype:
    """float64 for double precision, else float32 (never half: it overflows)."""
    if dtype in (torch.float64, torch.complex128):
        return torch.float64
    return torch.float32


def abs_sum(tensor: torch.Tensor) -> torch.Tensor:
    """sum |t| (|z| for complex) as a 0-dim tensor, accumulated in float32 at least."""
    t = dense_values(tensor)
    if t.numel() == 0:
        return torch.zeros((), device=t.device)
    return t.abs().sum(dtype=_accumulation_dtype(t.dtype))


# torch._foreach_norm is private API: it measures a whole list of tensors with one fused kernel
# per statistic, where a loop launches two kernels per tensor (4,000 launches for 2,000 biases on
# a GPU). No public function reaches per-tensor norms of a list that way. On the CPU its L1 and
# L-inf norms are scalar loops (about 7x slower than the public ops below), so the CPU, and any
# torch without it, takes the per-tensor path. tests/test_stats.py checks both paths agree.
_FOREACH_NORM = getattr(torch, "_foreach_norm", None)
_CHUNK = 1 << 17  # elements measured at a time on the CPU: 512 KiB of float32 stays in cache
_SMALL = 4096  # tensors up to this size are stacked: one kernel for many, not one each


def use_foreach(device: torch.device) -> bool:
    """Whether abs_stats measures tensors on `device` with torch._foreach_norm (see above)."""
    return _FOREACH_NORM is not None and device.type != "cpu"


def _foreach_abs_stats(
    values: list[torch.Tensor], acc: torch.dtype
) -> tuple[list[int], torch.Tensor, torch.Tensor]:
    """max |t| and sum |t| of each tensor (one dtype, one device), in order: two fused kernels."""
    maxes = _FOREACH_NORM(values, math.inf, dtype=acc)  # type: ignore[misc]
    sums = _FOREACH_NORM(values, 1, dtype=acc)  # type: ignore[misc]
    return list(range(len(values))), torch.stack(maxes), torch.stack(sums)


def _looped_abs_stats(
    values: list[torch.Tensor], acc: torch.dtype
) -> tuple[list[int], torch.Tensor, torch.Tensor]:
    """max |t| and sum |t| of each tensor (one dtype, one device) with public per-tensor ops, in
    the order of the returned indices.

    |t| is written into a cache-sized scratch buffer and both reductions read it there, so each
    gradient is read from memory once; a tensor larger than the buffer goes through it in chunks.
    Small tensors of one shape (a model's biases) are stacked into it, many per kernel.
    """
    buffer = torch.empty(_CHUNK, dtype=values[0].dtype, device=values[0].device)
    order: list[int] = []
    one_max: list[torch.Tensor] = []  # 0-dim, one per tensor measured alone
    one_sum: list[torch.Tensor] = []
    shapes: dict[torch.Size, list[int]] = defaultdict(list)
    for i, v in enumerate(values):
        if v.numel() <= _SMALL:
            shapes[v.shape].append(i)
            continue
        chunk_max, chunk_sum = [], []
        for chunk in v.reshape(-1).split(_CHUNK):
            scratch = torch.abs(chunk, out=buffer[: chunk.numel()])
            chunk_max.append(scratch.amax())
            chunk_sum.append(scratch.sum(dtype=acc))
        order.append(i)
        one_max.append(chunk_max[0] if len(chunk_max) == 1 else torch.stack(chunk_max).amax())
        one_sum.append(chunk_sum[0] if len(chunk_sum) == 1 else torch.stack(chunk_sum).sum())
    maxes = [torch.stack(one_max)] if one_max else []
    sums = [torch.stack(one_sum)] if one_sum else []
    for shape, idx in shapes.items():
        numel = values[idx[0]].numel()
        per_batch = _CHUNK // numel
        for start in range(0, len(idx), per_batch):
            batch = idx[start : start + per_batch]
            scratch = buffer[: len(batch) * numel].view(len(batch), *shape)
            torch.stack([values[i] for i in batch], out=scratch).abs_()
            order += batch
            maxes.append(scratch.view(len(batch), numel).amax(dim=1))
            sums.append(scratch.view(len(batch), numel).sum(dim=1, dtype=acc))
    return order, torch.cat(maxes), torch.cat(sums)


@torch.no_grad()
def abs_stats(tensors: Sequence[torch.Tensor]) -> list[tuple[float, float]]:
    """(max |t|, sum |t|) of every tensor as Python floats: one pass over each, one host read.

    sum |t| (accumulated in float32 at least) is NaN or Inf whenever t holds a NaN or an Inf, and
    Inf also when finite values overflow float32; max |t| is NaN or Inf then too on the per-tensor
    path (a fused kernel elsewhere may skip a NaN). So a caller that must know whether t is finite
    checks both and counts NaN and Inf (count_nonfinite) where one is not finite.
    Complex tensors are measured by |z|, sparse ones by their stored values; empty ones give 0.
    """
    if not tensors:
        return []
    first = tensors[0].device
    groups: dict[tuple[torch.device, torch.dtype], list[int]] = defaultdict(list)
    values = [t.coalesce().values() if t.is_sparse else t for t in tensors]  # no grad mode: no detach
    order: list[int] = []
    maxes: list[torch.Tensor] = []
    sums: list[torch.Tensor] = []
    others: list[int] = []
    for i, v in enumerate(values):
        if v.is_floating_point() and v.numel() and v.layout == torch.strided:
            groups[(v.device, v.dtype)].append(i)
        else:  # complex, integer or empty: rare, one tensor at a time
            others.append(i)
    for (device, dtype), idx in groups.items():
        measure = _foreach_abs_stats if use_foreach(device) else _looped_abs_stats
        positions, group_max, group_sum = measure([values[i] for i in idx], _accumulation_dtype(dtype))
        order += [idx[j] for j in positions]
        maxes.append(on_device(group_max.double(), first))
        sums.append(on_device(group_sum.double(), first))
    if others:
        order += others
        maxes.append(torch.stack([on_device(abs_max(values[i]).double(), first) for i in others]))
        sums.append(torch.stack([on_device(abs_sum(values[i]).double(), first) for i in others]))
    numbers = torch.stack([torch.cat(maxes), torch.cat(sums)]).tolist()  # the one host read
    result = [(0.0, 0.0)] * len(tensors)
    for i, m, s in zip(order, numbers[0], numbers[1]):
        result[i] = (m, s)
    return result


@torch.no_grad()
def total_norm(tensors: Sequence[torch.Tensor], norm_type: float) -> torch.Tensor:
    """The norm of all tensors together as a 0-dim tensor on the first one's device (no host read).

    torch.nn.utils.get_total_norm, except that half and bfloat16 accumulate in float32: finite
    gradients whose norm exceeds 65504 must not get an infinite norm.
    """
    values = [dense_values(t) for t in tensors]
    first = values[0].device if values else torch.device("cpu")
    groups: dict[bool, list[torch.Tensor]] = defaultdict(list)
    for v in values:
        if v.numel():
            groups[v.dtype in (torch.float16, torch.bfloat16)].append(v)
    norms: list[torch.Tensor] = []
    if groups[False]:
        norms.append(torch.nn.utils.get_total_norm(groups[False], norm_type, foreach=None))
    for v in groups[True]:
        norms.append(torch.linalg.vector_norm(v, norm_type, dtype=torch.float32))
    if not norms:
        return torch.zeros((), device=first)
    if len(norms) == 1:
        return on_device(norms[0], first)
    wide = torch.stack([on_device(n.float() if n.dtype != torch.float64 else n, first) for n in norms])
    return torch.linalg.vector_norm(wide, norm_type)
