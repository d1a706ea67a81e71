"""Per-parameter gradient reports, classification and the total gradient norm."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from helpers._stats import abs_stats, nonfinite_counts, total_norm
from helpers._table import html_table, text_table
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


def _status(param: nn.Parameter, row: tuple[float, float] | None, in_optimizer: bool) -> GradStatus:
    if not param.requires_grad:
        return GradStatus.FROZEN
    if row is None:
        return GradStatus.NO_GRAD
    if not math.isfinite(row[1]):
        return GradStatus.NON_FINITE_GRAD
    if not in_optimizer:
        return GradStatus.NOT_IN_OPTIMIZER
    if row[1] == 0.0:
        return GradStatus.ZERO_GRAD
    return GradStatus.OK


def _rows(model: nn.Module, optimizer: torch.optim.Optimizer | None) -> list[GradientRow]:
    require_module(model)
    opt_ids = optimizer_parameter_ids(optimizer) if optimizer is not None else None
    named = list(model.named_parameters())
    with_grad = [(i, p.grad) for i, (_, p) in enumerate(named) if p.grad is not None]
    stats = dict(zip([i for i, _ in with_grad], abs_stats([g for _, g in with_grad])))
    bad = [i for i, s in stats.items() if not math.isfinite(s[1])]
    counts = dict(zip(bad, nonfinite_counts([named[i][1].grad for i in bad])))  # type: ignore[misc]
    rows = []
    for i, (name, param) in enumerate(named):
        s = stats.get(i)
        in_opt = opt_ids is None or id(param) in opt_ids
        nan, inf = counts.get(i, (0, 0))
        rows.append(
            GradientRow(
                name=name,
                status=_status(param, s, in_opt),
                mean_abs=None if s is None else s[0],
                max_abs=None if s is None else s[1],
                finite=s is None or math.isfinite(s[1]),
                nan=nan,
                inf=inf,
            )
        )
    return rows


class _Report:
    """Shared behaviour: rows as data, a plain-text repr, an HTML table."""

    title = "report"
    columns: tuple[str, ...] = ()

    def __init__(self, rows: list[Any]) -> None:
        self.rows = rows

    def _cells(self, row: Any) -> list[Any]:
        return [getattr(row, c) for c in self.columns]

    def _summary(self) -> str:
        return f"{len(self.rows)} parameters"

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.rows)

    def __getitem__(self, name: str) -> Any:
        for row in self.rows:
            if row.name == name:
                return row
        raise KeyError(f"no parameter named {name!r}; have {[r.name for r in self.rows]}")

    def __repr__(self) -> str:
        table = text_table(self.columns, [self._cells(r) for r in self.rows])
        return f"{self.title} ({self._summary()})\n{table}"

    def _repr_html_(self) -> str:
        return html_table(
            self.columns,
            [self._cells(r) for r in self.rows],
            caption=f"{self.title} ({self._summary()})",
            status_column="status",
        )


class GradientReport(_Report):
    """gradient_report's result: one GradientRow per parameter."""

    title = "gradient report"
    columns = ("name", "status", "mean_abs", "max_abs", "finite", "nan", "inf")

    @property
    def status(self) -> dict[str, GradStatus]:
        """Parameter name to its GradStatus."""
        return {r.name: r.status for r in self.rows}

    @property
    def all_finite(self) -> bool:
        """True when no gradient holds NaN or Inf."""
        return all(r.finite for r in self.rows)

    def _summary(self) -> str:
        bad = sum(not r.finite for r in self.rows)
        missing = sum(r.status is GradStatus.NO_GRAD for r in self.rows)
        return f"{len(self.rows)} parameters, {missing} without grad, {bad} non-finite"


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
    """Status and |g| statistics of every parameter's gradient; one host read when all are finite."""
    return GradientReport(_rows(model, None))


def classify_parameter_gradients(
    model: nn.Module, optimizer: torch.optim.Optimizer | None = None
) -> GradClassification:
    """Label every parameter FROZEN, NO_GRAD, NON_FINITE_GRAD, NOT_IN_OPTIMIZER, ZERO_GRAD or OK."""
    return GradClassification(_rows(model, optimizer))


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
