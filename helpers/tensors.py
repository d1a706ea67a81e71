"""`debug_tensor`: everything autograd knows about one tensor, as a value."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from helpers._stats import count_nonfinite, dense_values
from helpers._table import fmt, html_report_table
from helpers._validate import require_tensor
from helpers.lineage import Lineage, lineage

__all__ = ["TensorInfo", "debug_tensor", "grad_fn_name", "has_grad"]


def grad_fn_name(tensor: torch.Tensor) -> str | None:
    """The class name of the tensor's grad_fn node, or None for a leaf or a constant."""
    return type(tensor.grad_fn).__name__ if tensor.grad_fn is not None else None


def has_grad(tensor: torch.Tensor) -> bool:
    """Whether .grad is set, without the warning a non-leaf's .grad access gives."""
    if not (tensor.is_leaf or tensor.retains_grad):
        return False
    return tensor.grad is not None


@dataclass(frozen=True)
class TensorInfo:
    """A snapshot of one tensor's autograd state and, for floating tensors, its statistics."""

    name: str
    shape: tuple[int, ...]
    dtype: torch.dtype
    device: torch.device
    requires_grad: bool
    is_leaf: bool
    grad_fn: str | None
    has_grad: bool
    min: float | None = None
    max: float | None = None
    mean: float | None = None
    nan: int | None = None
    inf: int | None = None
    # kept only when the tensor holds NaN or Inf, whose values are alike on every run (helpers/lineage.py)
    lineage: Lineage | None = field(default=None, repr=False, compare=False)

    def _fields(self) -> list[tuple[str, object]]:
        fields: list[tuple[str, object]] = [
            ("shape", self.shape),
            ("dtype", str(self.dtype).replace("torch.", "")),
            ("device", str(self.device)),
            ("requires_grad", self.requires_grad),
            ("is_leaf", self.is_leaf),
            ("grad_fn", self.grad_fn),
            ("grad", "set" if self.has_grad else None),
        ]
        if self.min is not None:
            fields += [("min", self.min), ("max", self.max), ("mean", self.mean)]
            fields += [("nan", self.nan), ("inf", self.inf)]
        return fields

    def __repr__(self) -> str:
        return f"{self.name}: " + " ".join(f"{k}={fmt(v)}" for k, v in self._fields())

    def _repr_html_(self) -> str:
        fields = self._fields()
        return html_report_table(["tensor"] + [k for k, _ in fields], [[self.name] + [v for _, v in fields]])


def debug_tensor(name: str, tensor: torch.Tensor) -> TensorInfo:
    """Describe a tensor's autograd state; statistics cost one host read for floating tensors."""
    require_tensor(name, tensor)
    stats: dict[str, float | int | None] = {}
    floating = tensor.is_floating_point() or tensor.is_complex()
    if floating and tensor.layout in (torch.strided, torch.sparse_coo):
        stats = _statistics(tensor)
    return TensorInfo(
        name=name,
        shape=tuple(tensor.shape),
        dtype=tensor.dtype,
        device=tensor.device,
        requires_grad=tensor.requires_grad,
        is_leaf=tensor.is_leaf,
        grad_fn=grad_fn_name(tensor),
        has_grad=has_grad(tensor),
        **stats,
        lineage=lineage(tensor) if stats.get("nan") or stats.get("inf") else None,
    )


@torch.no_grad()
def _statistics(tensor: torch.Tensor) -> dict[str, float | int | None]:
    """min, max, mean (of |z| for complex) and NaN/Inf counts, with one host read."""
    t = tensor.detach()
    if t.numel() == 0:
        return {"min": None, "max": None, "mean": None, "nan": 0, "inf": 0}
    stored = dense_values(t)
    values = (stored.abs() if stored.is_complex() else stored).flatten()
    if stored.numel() < t.numel():  # a sparse tensor's unstored elements are zeros
        values = torch.cat([values, values.new_zeros(1)])
    row = torch.cat(
        [
            torch.stack([values.amin().double(), values.amax().double(), values.double().sum() / t.numel()]),
            count_nonfinite(stored).double(),
        ]
    ).tolist()
    return {"min": row[0], "max": row[1], "mean": row[2], "nan": int(row[3]), "inf": int(row[4])}
