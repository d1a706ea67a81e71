"""Per-parameter gradient reports, classification and the total gradient norm."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import NamedTuple

import torch
from torch import nn

from helpers._report import Report
from helpers._stats import abs_stats, nonfinite_counts, total_norm
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


class GradientRow(NamedTuple):
    """One parameter's gradient: status and |g| statistics (None when there is no gradient).

    A named tuple: frozen like every row, and cheap to make for a model of 2,000 tensors.
    """

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

    Every figure of every row (status, mean |g|, max |g|, finiteness) comes from one pass over
    the gradients and one host read, made when the report is made; showing it reads nothing.
    A gradient that holds NaN or Inf costs a second read, which counts them exactly.
    """

    title = "gradient report"
    columns = ("name", "status", "mean_abs", "max_abs", "finite", "nan", "inf")

    @torch.no_grad()
    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer | None = None) -> None:
        require_module(model)
        opt_ids = optimizer_parameter_ids(optimizer) if optimizer is not None else None
        named: list[tuple[str, torch.Tensor]] = list(model.named_parameters())
        registered = len(named)
        named += unregistered_tensors(model, {id(p) for _, p in named})
        grads = [p.grad for _, p in named]
        stats = iter(abs_stats([g for g in grads if g is not None]))  # the one host read
        measured = [None if g is None else next(stats) for g in grads]  # (max |g|, sum |g|)
        # A figure that is not finite means NaN or Inf (or finite values too large for float32
        # to sum): count them, a second read, made only then.
        bad = [i for i, m in enumerate(measured) if m is not None and not math.isfinite(m[0] + m[1])]
        counts = dict(zip(bad, nonfinite_counts([grads[i] for i in bad])))  # type: ignore[misc]
        rows = []
        for i, ((name, p), g, m) in enumerate(zip(named, grads, measured)):
            in_optimizer = opt_ids is None or id(p) in opt_ids
            if g is None or m is None:
                status = _status(p, None, in_optimizer, i < registered)
                rows.append(GradientRow(name, status, None, None, True, 0, 0))
                continue
            nan, inf = counts.get(i, (0, 0))
            max_abs = math.nan if nan else math.inf if inf else m[0]  # exact, whatever the kernel skipped
            mean_abs = m[1] / g.numel() if g.numel() else 0.0
            status = _status(p, max_abs, in_optimizer, i < registered)
            rows.append(GradientRow(name, status, mean_abs, max_abs, not (nan or inf), nan, inf))
        super().__init__(rows)

    @property
    def status(self) -> dict[str, GradStatus]:
        """Parameter name to its GradStatus."""
        return {r.name: r.status for r in self.rows}

    @property
    def all_finite(self) -> bool:
        """True when no gradient holds NaN or Inf."""
        return all(r.finite for r in self.rows)

    @property
    def unregistered(self) -> list[str]:
        """Attribute paths of trainable tensors the model holds but does not register."""
        return [r.name for r in self.rows if r.status is GradStatus.UNREGISTERED]

    def _summary(self) -> str:
        bad = sum(not r.finite for r in self.rows)
        missing = sum(r.status is GradStatus.NO_GRAD for r in self.rows)
        text = f"{len(self.rows)} parameters, {missing} without grad, {bad} non-finite"
        unregistered = len(self.unregistered)
        return text + (f", {unregistered} unregistered" if unregistered else "")


class GradClassification(GradientReport):
    """classify_parameter_gradients' result: `.status` maps each name to a GradStatus."""

    title = "gradient classification"
    columns = ("name", "status", "max_abs")

    def names(self, status: GradStatus) -> list[str]:
        """The parameters with the given status."""
        return [r.name for r in self.rows if r.status is status]

    def _summary(self) -> str:
        counts: dict[str, int] = {}
        for r in self.rows:
            counts[r.status.name] = counts.get(r.status.name, 0) + 1
        return ", ".join(f"{k}={v}" for k, v in counts.items())


def gradient_report(model: nn.Module) -> GradientReport:
    """Status and |g| statistics of every parameter's gradient (and of trainable tensors the model
    holds without registering them); one host read when all are finite, a second to count NaN/Inf."""
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
