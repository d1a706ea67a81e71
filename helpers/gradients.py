"""Per-parameter gradient reports, classification and the total gradient norm."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import torch
from torch import nn

from helpers._report import Report
from helpers._stats import abs_max_floats, abs_sum, host_floats, nonfinite_counts, total_norm
from helpers._unregistered import unregistered_tensors
from helpers._validate import require_module, require_parameters
from helpers.status import GradStatus

__all__ = [
    "GradClassification",
    "GradientReport",
    "GradientRow",
    "classify_parameter_gradients",
    "grad_norm",
    "gradient_report",
    "optimizer_parameter_ids",
]


@dataclass(frozen=True)
class GradientRow:
    """One parameter's gradient: status and |g| statistics (None when there is no gradient)."""

    name: str
    status: GradStatus
    mean_abs: float | None
    max_abs: float | None
    finite: bool
    nan: int
    inf: int

    def __repr__(self) -> str:
        return (
            f"GradientRow({self.name!r}, {self.status.name}, mean_abs={self.mean_abs}, "
            f"max_abs={self.max_abs}, nan={self.nan}, inf={self.inf})"
        )


def optimizer_parameter_ids(optimizer: torch.optim.Optimizer) -> set[int]:
    """The ids of every tensor that any of the optimizer's param groups holds."""
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"expected a torch.optim.Optimizer, got {type(optimizer).__name__}")
    return {id(p) for group in optimizer.param_groups for p in group["params"]}


def _status(param: torch.Tensor, max_abs: float | None, in_optimizer: bool, registered: bool) -> GradStatus:
    if not param.requires_grad:
        return GradStatus.FROZEN
    if not registered:
        return GradStatus.UNREGISTERED
    if max_abs is None:
        return GradStatus.NO_GRAD
    if not math.isfinite(max_abs):
        return GradStatus.NON_FINITE_GRAD
    if not in_optimizer:
        return GradStatus.NOT_IN_OPTIMIZER
    if max_abs == 0.0:
        return GradStatus.ZERO_GRAD
    return GradStatus.OK


class GradientReport(Report):
    """gradient_report's result: one GradientRow per parameter (and per unregistered tensor).

    Statuses, max |g| and finiteness come from one pass over the gradients and one host read
    (NaN/Inf counts, a second, only when a gradient is not finite); the rows' mean |g| (a second
    pass) is measured when the rows are first used.
    """

    title = "gradient report"
    columns = ("name", "status", "mean_abs", "max_abs", "finite", "nan", "inf")

    @torch.no_grad()
    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer | None = None) -> None:
        super().__init__()
        require_module(model)
        opt_ids = optimizer_parameter_ids(optimizer) if optimizer is not None else None
        named: list[tuple[str, torch.Tensor]] = list(model.named_parameters())
        registered = len(named)
        named += unregistered_tensors(model, {id(p) for _, p in named})
        grads = [(i, p.grad) for i, (_, p) in enumerate(named) if p.grad is not None]
        maxes = dict(zip([i for i, _ in grads], abs_max_floats([g for _, g in grads])))
        self._named = named
        self._grads = grads  # held until the rows are built (then released)
        self._versions = [g._version for _, g in grads]
        self._max = maxes
        self._status = [
            _status(p, maxes.get(i), opt_ids is None or id(p) in opt_ids, i < registered)
            for i, (_, p) in enumerate(named)
        ]
        bad = [i for i, _ in grads if not math.isfinite(maxes[i])]  # a second read only then
        self._counts = dict(zip(bad, nonfinite_counts([named[i][1].grad for i in bad])))  # type: ignore[misc]

    def _build_rows(self) -> list[GradientRow]:
        """The rows; mean |g| is measured now, on the gradients this report saw.

        A gradient changed in place since the report (a backward accumulating into it, zero_grad
        without set_to_none) gets mean_abs None: its old values are gone. Status, max |g| and
        the NaN/Inf counts were measured when the report was made.
        """
        kept = [(i, g) for (i, g), v in zip(self._grads, self._versions) if g._version == v]
        numbers = host_floats([abs_sum(g) for _, g in kept])  # one host read for every mean
        means = {i: (s / g.numel() if g.numel() else 0.0) for (i, g), s in zip(kept, numbers)}
        self._grads, self._versions = [], []  # rows are built: the gradients are no longer needed
        rows = []
        for i, (name, _) in enumerate(self._named):
            mx = self._max.get(i)
            nan, inf = self._counts.get(i, (0, 0))
            finite = mx is None or math.isfinite(mx)
            rows.append(GradientRow(name, self._status[i], means.get(i), mx, finite, nan, inf))
        return rows

    @property
    def status(self) -> dict[str, GradStatus]:
        """Parameter name to its GradStatus."""
        return {name: st for (name, _), st in zip(self._named, self._status)}

    @property
    def all_finite(self) -> bool:
        """True when no gradient holds NaN or Inf."""
        return all(math.isfinite(m) for m in self._max.values())

    @property
    def unregistered(self) -> list[str]:
        """Attribute paths of trainable tensors the model holds but does not register."""
        return [n for (n, _), st in zip(self._named, self._status) if st is GradStatus.UNREGISTERED]

    def _summary(self) -> str:
        bad = sum(not math.isfinite(m) for m in self._max.values())
        missing = sum(st is GradStatus.NO_GRAD for st in self._status)
        text = f"{len(self._named)} parameters, {missing} without grad, {bad} non-finite"
        unregistered = len(self.unregistered)
        return text + (f", {unregistered} unregistered" if unregistered else "")

    def __len__(self) -> int:
        return len(self._named)


class GradClassification(GradientReport):
    """classify_parameter_gradients' result: `.status` maps each name to a GradStatus."""

    title = "gradient classification"
    columns = ("name", "status", "max_abs")

    def names(self, status: GradStatus) -> list[str]:
        """The parameters with the given status."""
        return [n for (n, _), st in zip(self._named, self._status) if st is status]

    def _summary(self) -> str:
        counts: dict[str, int] = {}
        for st in self._status:
            counts[st.name] = counts.get(st.name, 0) + 1
        return ", ".join(f"{k}={v}" for k, v in counts.items())


def gradient_report(model: nn.Module) -> GradientReport:
    """Status and |g| statistics of every parameter's gradient (and of trainable tensors the model
    holds without registering them); one host read when all are finite, rows built on first use."""
    return GradientReport(model)


def classify_parameter_gradients(
    model: nn.Module, optimizer: torch.optim.Optimizer | None = None
) -> GradClassification:
    """Label every parameter FROZEN, UNREGISTERED, NO_GRAD, NON_FINITE_GRAD, NOT_IN_OPTIMIZER,
    ZERO_GRAD or OK; one pass over the gradients and one host read when they are finite."""
    return GradClassification(model, optimizer)


@torch.no_grad()
def grad_norm(
    model_or_parameters: nn.Module | Iterable[torch.Tensor], norm_type: float = 2.0
) -> torch.Tensor:
    """Total norm of all gradients as a 0-dim tensor on their device (no host read)."""
    params = require_parameters(model_or_parameters)
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        device = params[0].device if params else torch.device("cpu")
        return torch.zeros((), device=device)
    return total_norm(grads, float(norm_type))
