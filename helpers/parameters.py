"""Parameter inventory (what is trainable) and parameter changes (what a step moved)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import torch
from torch import nn

from helpers._report import Report
from helpers._stats import dense_values, host_floats, on_device
from helpers._validate import require_module, require_tensor

__all__ = [
    "ParameterChange",
    "ParameterChanges",
    "ParameterReport",
    "ParameterRow",
    "ParameterSnapshot",
    "moved_elements",
    "norms_of",
    "parameter_changes",
    "parameter_report",
    "snapshot_parameters",
    "value_norms",
]


@dataclass(frozen=True)
class ParameterRow:
    """One parameter: name, shape, size and whether it trains."""

    name: str
    shape: tuple[int, ...]
    numel: int
    requires_grad: bool


class ParameterReport(Report):
    """parameter_report's result: `.rows`, `.total` and `.trainable` element counts.

    `.value_norms` maps each name to the norm of the parameter's values when the report was taken
    (not a column: it tells this run's model from another's, e.g. the same network at another seed).
    """

    title = "parameter report"
    columns = ("name", "shape", "numel", "requires_grad")
    status_column = None

    def __init__(self, rows: list[ParameterRow], value_norms: dict[str, float] | None = None) -> None:
        super().__init__(rows)
        self.total = sum(r.numel for r in rows)
        self.trainable = sum(r.numel for r in rows if r.requires_grad)
        self.value_norms = dict(value_norms or {})

    @property
    def frozen(self) -> list[str]:
        """Names of the parameters that do not require grad."""
        return [r.name for r in self.rows if not r.requires_grad]

    def _summary(self) -> str:
        return f"total parameters: {self.total:,}, trainable: {self.trainable:,}"


def parameter_report(model: nn.Module) -> ParameterReport:
    """Every parameter (a tied one once) with its shape and requires_grad; one host read (value_norms)."""
    require_module(model)
    rows = [
        ParameterRow(name, tuple(p.shape), p.numel(), p.requires_grad) for name, p in model.named_parameters()
    ]
    return ParameterReport(rows, value_norms(model))


@torch.no_grad()
def value_norms(model: nn.Module) -> dict[str, float]:
    """The L2 norm (float64) of each parameter's values, by name: one host read for the whole model.
    A parameter on the meta device holds no values and is left out."""
    require_module(model)
    return norms_of(model.named_parameters())


def norms_of(named: Iterable[tuple[str, torch.Tensor]]) -> dict[str, float]:
    """The L2 norm (float64) of each named tensor's values, by name: one host read for all of them. A
    tensor on the meta device holds no values and is left out."""
    kept = [(n, p) for n, p in named if p.device.type != "meta"]
    return dict(zip([n for n, _ in kept], host_floats([_value_norm(p) for _, p in kept])))


_CHUNK = 1 << 18  # elements: a parameter's values (and |now - before|) are measured a chunk at a time


def _value_norm(p: torch.Tensor) -> torch.Tensor:
    """The L2 norm of a parameter's values, summed in float64 a chunk at a time (temporaries of a few
    MiB whatever its size), as a 0-dim float64 tensor on its device; 0 when it is empty."""
    values = dense_values(p).reshape(-1)
    wide = torch.complex128 if values.is_complex() else torch.float64
    chunks = [torch.linalg.vector_norm(x.to(wide)) for x in values.split(_CHUNK)]
    if not chunks:
        return torch.zeros((), dtype=torch.float64, device=p.device)
    return torch.linalg.vector_norm(torch.stack(chunks))


class ParameterSnapshot(dict):
    """Parameter name to a detached copy of its value, taken by snapshot_parameters."""

    def __repr__(self) -> str:
        return f"ParameterSnapshot({len(self)} parameters: {', '.join(self)})"


def snapshot_parameters(model: nn.Module) -> ParameterSnapshot:
    """Copy every parameter's current value (on its device)."""
    require_module(model)
    return ParameterSnapshot((name, p.detach().clone()) for name, p in model.named_parameters())


@dataclass(frozen=True)
class ParameterChange:
    """How much one parameter moved since the snapshot."""

    name: str
    changed: bool
    mean_delta: float
    max_delta: float


class ParameterChanges(Report):
    """parameter_changes' result: `.changed` maps name to bool; rows hold the deltas.

    `.value_norms` maps each name to the norm of the parameter's values when the changes were
    measured (not a column: it tells this run's model from another's).
    """

    title = "parameter changes"
    columns = ("name", "status", "mean_delta", "max_delta")

    def __init__(self, rows: list[ParameterChange], value_norms: dict[str, float] | None = None) -> None:
        super().__init__(rows)
        self.changed = {r.name: r.changed for r in rows}
        self.value_norms = dict(value_norms or {})

    @property
    def unchanged(self) -> list[str]:
        """Names of the parameters that did not move."""
        return [r.name for r in self.rows if not r.changed]

    def _cell_columns(self, rows: list[ParameterChange]) -> list[list[object]]:
        status = ["changed" if r.changed else "unchanged" for r in rows]
        return [[r.name for r in rows], status, [r.mean_delta for r in rows], [r.max_delta for r in rows]]

    def _summary(self) -> str:
        return f"{sum(self.changed.values())} of {len(self.rows)} changed"


def moved_elements(now: torch.Tensor, before: torch.Tensor) -> torch.Tensor:
    """Where `now` differs from `before`, elementwise; a NaN on both sides stayed (NaN != NaN).

    The toolkit's one test of "did this parameter move?": parameter_changes and the doctor's
    probe and restore check all ask it.
    """
    return (now != before) & ~(now.isnan() & before.isnan())


def _delta_stats(now: torch.Tensor, before: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """mean and max |now - before| as float64 0-dim tensors on now's device.

    A chunk at a time, summed in float64: the temporaries stay at a few MiB whatever the
    parameter's size (diagnose measures changes while it holds its copy of the training state).
    """
    if now.numel() == 0:
        zero = torch.zeros((), dtype=torch.float64, device=now.device)
        return zero, zero
    sums, tops = [], []
    for x, y in zip(now.reshape(-1).split(_CHUNK), before.reshape(-1).split(_CHUNK)):
        d = (x - y).abs()
        sums.append(d.sum(dtype=torch.float64))
        tops.append(d.amax().double())
    return torch.stack(sums).sum() / now.numel(), torch.stack(tops).amax()


@torch.no_grad()
def parameter_changes(model: nn.Module, snapshot: dict[str, torch.Tensor]) -> ParameterChanges:
    """Compare parameters with a snapshot; one host read for all of them."""
    require_module(model)
    if not isinstance(snapshot, dict):
        raise TypeError(f"expected the dict from snapshot_parameters(), got {type(snapshot).__name__}")
    named = list(model.named_parameters())
    missing = [n for n, _ in named if n not in snapshot]
    extra = [n for n in snapshot if n not in dict(named)]
    if missing or extra:
        raise KeyError(
            f"expected a snapshot of this model's parameters: missing {missing}, unknown {extra}; "
            "take it with snapshot_parameters(model) from the same model"
        )
    for name, p in named:
        require_tensor(f"snapshot[{name!r}]", snapshot[name])
        if snapshot[name].shape != p.shape:
            raise ValueError(
                f"{name}: snapshot shape {tuple(snapshot[name].shape)} != parameter shape {tuple(p.shape)}"
            )
    if not named:
        return ParameterChanges([])
    device = named[0][1].device
    stats = []
    for name, p in named:
        before = on_device(snapshot[name], p.device)
        differs = moved_elements(p.detach(), before).any().double()
        mean, mx = _delta_stats(p.detach(), before)
        stats.append(on_device(torch.stack([differs, mean, mx, _value_norm(p)]), device))
    values = torch.stack(stats).tolist()
    return ParameterChanges(
        [ParameterChange(name, bool(v[0]), v[1], v[2]) for (name, _), v in zip(named, values)],
        {name: v[3] for (name, _), v in zip(named, values)},
    )
