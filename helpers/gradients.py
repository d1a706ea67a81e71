"""Per-parameter gradient reports, classification and the total gradient norm.

Read top to bottom: a row (GradientRow), the figures of one gradient as the report defines them
(gradient_figures), a row's status (_status), then the report, which gives every row those figures.
The report measures all gradients at once through the tuned path (helpers._tuned_norms: one pass
over each gradient, one host read for all), which gives the figures gradient_figures defines.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from operator import attrgetter
from typing import NamedTuple

import torch
from torch import nn

from helpers._report import Report
from helpers._stats import count_nonfinite, exact_norm, total_norm
from helpers._tuned_norms import figures
from helpers._validate import require_module, require_parameters
from helpers._walk import model_tensors
from helpers.parameters import norms_of
from helpers.status import GradStatus

__all__ = [
    "GradClassification",
    "GradientReport",
    "GradientRow",
    "classify_parameter_gradients",
    "grad_norm",
    "gradient_figures",
    "gradient_report",
    "optimizer_parameter_ids",
]


class GradientRow(NamedTuple):
    """One parameter's gradient: its status, L2 norm and RMS (None when there is no gradient).

    `norm` is the figure torch.nn.utils.clip_grad_norm_ adds up: the total gradient norm is the
    root of the sum of the rows' norms squared. `rms` = norm / sqrt(numel), the size of a typical
    element, compares layers of different sizes. A named tuple: frozen like every row, and cheap
    to make for a model of 2,000 tensors.
    """

    name: str
    status: GradStatus
    norm: float | None
    rms: float | None
    nan: int
    inf: int

    @property
    def finite(self) -> bool:
        """True when the gradient holds no NaN and no Inf (or there is none)."""
        return not (self.nan or self.inf)

    def __repr__(self) -> str:
        return (
            f"GradientRow({self.name!r}, {self.status.name}, norm={self.norm}, "
            f"rms={self.rms}, nan={self.nan}, inf={self.inf})"
        )


def gradient_figures(grad: torch.Tensor) -> tuple[float, int, int]:
    """One gradient's figures, as the report defines them: (L2 norm, NaN count, Inf count).

    The norm is summed in float64, so no square underflows or overflows (it is NaN when the
    gradient holds a NaN, else inf when it holds an Inf); the counts are of its elements. Two host
    reads per gradient: the report gets the same figures for every gradient with one read
    (helpers._tuned_norms.figures).
    """
    nan, inf = count_nonfinite(grad).tolist()
    return exact_norm(grad).item(), nan, inf


def optimizer_parameter_ids(optimizer: torch.optim.Optimizer) -> set[int]:
    """The ids of every tensor that any of the optimizer's param groups holds."""
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"expected a torch.optim.Optimizer, got {type(optimizer).__name__}")
    return {id(p) for group in optimizer.param_groups for p in group["params"]}


def _status(requires_grad: bool, norm: float | None, in_optimizer: bool, registered: bool) -> GradStatus:
    if not requires_grad:
        return GradStatus.FROZEN
    if not registered:
        return GradStatus.UNREGISTERED
    if norm is None:
        return GradStatus.NO_GRAD
    if not math.isfinite(norm):
        return GradStatus.NON_FINITE_GRAD
    if not in_optimizer:
        return GradStatus.NOT_IN_OPTIMIZER
    if norm == 0.0:
        return GradStatus.ZERO_GRAD
    return GradStatus.OK


def _figures(grads: list[torch.Tensor | None]) -> tuple[list, list, list[int], list[int]]:
    """Four columns, an entry per gradient: norm, rms, NaN count, Inf count (None, None, 0, 0
    where there is no gradient). The figures of gradient_figures, measured by the tuned path."""
    where = [i for i, g in enumerate(grads) if g is not None]
    present = [grads[i] for i in where]
    norm, nan, inf = figures(present)
    rms = [n / math.sqrt(g.numel() or 1) for n, g in zip(norm, present)]
    if len(where) == len(grads):
        return norm, rms, nan, inf
    columns: tuple[list, list, list[int], list[int]] = (
        [None] * len(grads),
        [None] * len(grads),
        [0] * len(grads),
        [0] * len(grads),
    )
    for full, part in zip(columns, (norm, rms, nan, inf)):
        for i, value in zip(where, part):
            full[i] = value
    return columns


def _statuses(
    requires: list[bool], norm: list, in_optimizer: list[bool], registered: list[bool]
) -> list[GradStatus]:
    """Each row's status (_status); the common case, every row OK, is recognised first, with one
    cheap test per row instead of deciding each row."""
    if all(requires) and all(registered) and all(in_optimizer) and all(map(_positive_finite, norm)):
        return [GradStatus.OK] * len(norm)
    return list(map(_status, requires, norm, in_optimizer, registered))


def _positive_finite(norm: float | None) -> bool:
    return norm is not None and 0.0 < norm < math.inf


class GradientReport(Report):
    """gradient_report's result: one GradientRow per parameter (and per unregistered tensor).

    Every figure of every row (status, norm, RMS, finiteness) comes from one pass over the
    gradients and one host read, made when the report is made; showing it reads nothing. A
    gradient whose norm is not finite, or a large one too small for float32 squares, costs a
    second read, which measures it exactly (see _figures).
    The rows are built column by column: a model of 2,000 tensors makes 12,000 cells.
    """

    title = "gradient report"
    columns = ("name", "status", "norm", "rms", "nan", "inf")
    quiet = "OK or FROZEN with a finite gradient"

    @torch.no_grad()
    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer | None = None) -> None:
        require_module(model)
        named, unregistered = model_tensors(model)
        registered = [True] * len(named) + [False] * len(unregistered)
        named += unregistered
        names, params = (list(column) for column in zip(*named)) if named else ([], [])
        norm, rms, nan, inf = _figures(list(map(attrgetter("grad"), params)))
        if optimizer is None:
            in_optimizer = [True] * len(params)
        else:
            opt_ids = optimizer_parameter_ids(optimizer)
            in_optimizer = [id(p) in opt_ids for p in params]
        requires = list(map(attrgetter("requires_grad"), params))
        status = _statuses(requires, norm, in_optimizer, registered)
        super().__init__(list(map(GradientRow._make, zip(names, status, norm, rms, nan, inf))))
        # a gradient norm of exactly 0 is the same at every seed: the tensors are kept (not read) so that
        # `value_norms` can tell this run's model from another's where the gradients cannot
        self._zero = {n: p for n, p, v in zip(names, params, norm) if v == 0.0}

    @property
    def value_norms(self) -> dict[str, float]:
        """The value norms, now, of the tensors whose gradient norm was exactly 0 (one host read when
        asked, none otherwise): zeros alone are the same on every run."""
        return norms_of(self._zero.items()) if self._zero else {}

    def _notable(self) -> list[bool]:
        """A display of many rows never leaves out a row that is not OK or FROZEN, or holds NaN/Inf."""
        quiet = (GradStatus.OK, GradStatus.FROZEN)
        return [r.status not in quiet or bool(r.nan or r.inf) for r in self.rows]

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
        bad = sum(1 for r in self.rows if r.nan or r.inf)
        statuses = list(map(attrgetter("status"), self.rows))
        missing = statuses.count(GradStatus.NO_GRAD)
        text = f"{len(self.rows)} parameters, {missing} without grad, {bad} non-finite"
        unregistered = statuses.count(GradStatus.UNREGISTERED)
        return text + (f", {unregistered} unregistered" if unregistered else "")


class GradClassification(GradientReport):
    """classify_parameter_gradients' result: `.status` maps each name to a GradStatus."""

    title = "gradient classification"
    columns = ("name", "status", "norm")

    def names(self, status: GradStatus) -> list[str]:
        """The parameters with the given status."""
        return [r.name for r in self.rows if r.status is status]

    def _summary(self) -> str:
        statuses = list(map(attrgetter("status"), self.rows))  # list.count: no Python-level Enum hashing
        counts = ((status, statuses.count(status)) for status in GradStatus)
        return ", ".join(f"{status.name}={n}" for status, n in counts if n)


def gradient_report(model: nn.Module) -> GradientReport:
    """Status, L2 norm and RMS of every parameter's gradient (and of trainable tensors the model
    holds without registering them); one host read, a second only for a norm that is not finite
    (to count NaN and Inf) or tiny (to tell zero from small)."""
    return GradientReport(model)


def classify_parameter_gradients(
    model: nn.Module, optimizer: torch.optim.Optimizer | None = None
) -> GradClassification:
    """Label every parameter FROZEN, UNREGISTERED, NO_GRAD, NON_FINITE_GRAD, NOT_IN_OPTIMIZER,
    ZERO_GRAD or OK; one pass over the gradients and one host read when they are finite and non-zero."""
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
