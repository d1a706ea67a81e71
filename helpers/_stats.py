"""Per-tensor statistics on the device, read back to the host once; the one NaN/Inf counter."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import torch

__all__ = [
    "GradStats",
    "abs_max",
    "abs_max_floats",
    "abs_stats",
    "count_nonfinite",
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


_SMALL = 4096  # tensors up to this many elements are measured stacked, many at once


@torch.no_grad()
def abs_max_floats(tensors: Sequence[torch.Tensor]) -> list[float]:
    """max |t| of every tensor as Python floats, with one host read (see abs_max).

    Small real tensors of one shape, dtype and device (a model's many biases and norms) are
    stacked and reduced by one aminmax over a dimension: one kernel instead of one per tensor.
    """
    if not tensors:
        return []
    groups: dict[tuple, list[int]] = defaultdict(list)
    order: list[int] = []
    pieces: list[torch.Tensor] = []
    first = tensors[0].device
    for i, t in enumerate(tensors):
        small = t.layout == torch.strided and t.is_floating_point() and 0 < t.numel() <= _SMALL
        if small:
            groups[(t.device, t.dtype, t.shape)].append(i)
        else:
            order.append(i)
            pieces.append(on_device(abs_max(t).double().reshape(1), first))
    for idx in groups.values():
        stacked = torch.stack([tensors[i].detach() for i in idx]).reshape(len(idx), -1)
        low, high = torch.aminmax(stacked, dim=1)
        order.extend(idx)
        pieces.append(on_device(torch.maximum(-low, high).abs().double(), first))
    values = torch.cat(pieces).tolist()
    result = [0.0] * len(tensors)
    for i, v in zip(order, values):
        result[i] = v
    return result


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


@torch.no_grad()
def abs_stats(tensors: Sequence[torch.Tensor]) -> list[GradStats]:
    """(mean |t|, max |t|) for every tensor, with one host read for all of them.

    Max |t| is NaN or Inf exactly when t holds a NaN or an Inf, so it also decides finiteness.
    Tensor.sum adds in blocks (cascade summation), so a float32 sum keeps float32 accuracy;
    half and bfloat16 are summed in float32, float64 in float64.
    """
    if not tensors:
        return []
    flat = host_floats([abs_sum(t) for t in tensors] + [abs_max(t) for t in tensors])
    n = len(tensors)
    numels = [t.numel() for t in tensors]
    return [(flat[i] / numels[i] if numels[i] else 0.0, flat[n + i]) for i in range(n)]


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
