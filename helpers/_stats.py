"""The small measurements the toolkit shares: the one NaN/Inf counter, max |t|, the exact (float64)
norm of one tensor, the total norm, and one host read of many 0-dim tensors. Each reads top to
bottom; the gradient report's fast path over many tensors is helpers._tuned_norms."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import torch

__all__ = [
    "abs_max",
    "count_nonfinite",
    "dense_values",
    "exact_norm",
    "host_floats",
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


def exact_norm(tensor: torch.Tensor) -> torch.Tensor:
    """The L2 norm of a tensor's stored values in float64, as a 0-dim tensor on its device: no
    float32 underflow or overflow; NaN when it holds a NaN, else Inf when an Inf; 0 when empty."""
    v = dense_values(tensor)
    wide = torch.complex128 if v.is_complex() else torch.float64
    return torch.linalg.vector_norm(v.to(wide)) if v.numel() else torch.zeros((), dtype=torch.float64)


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
