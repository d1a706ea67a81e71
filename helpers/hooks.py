"""`watch_gradients`: conditional gradient hooks that only speak about bad gradients."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

import torch
from torch import nn

from helpers._stats import dense_values, host_floats
from helpers._table import html_report_table, text_table
from helpers._validate import require_module
from helpers.thresholds import EXPLODING

__all__ = ["GradientAlert", "GradientWatch", "watch_gradients"]


@dataclass(frozen=True)
class GradientAlert:
    """A gradient that arrived non-finite or larger than the threshold."""

    name: str
    kind: str  # "non-finite" or "large"
    max_abs: float

    def __repr__(self) -> str:
        return f"GradientAlert({self.name!r}, {self.kind}, max_abs={self.max_abs:.3e})"


class GradientWatch:
    """Hooks on every trainable parameter; `.alerts` lists the gradients worth a look.

    Each hook stores only max |grad| (a new 0-dim tensor on the device), never the gradient
    itself, so torch can still hand the gradient to `.grad` without copying it. The maxima
    are read back to the host once, when `.alerts` is first asked for after a backward pass
    or when the `with` block ends without an error, whichever comes first.
    """

    def __init__(self, model: nn.Module, max_abs: float = EXPLODING) -> None:
        require_module(model)
        if not max_abs > 0:
            raise ValueError(f"expected max_abs > 0, got {max_abs}")
        self.model, self.max_abs = model, float(max_abs)
        self._handles: list[torch.utils.hooks.RemovableHandle] = []
        self._pending: list[tuple[str, torch.Tensor]] = []
        self._alerts: list[GradientAlert] = []
        self.seen = 0

    def _hook(self, name: str) -> Callable[[torch.Tensor], None]:
        def hook(grad: torch.Tensor) -> None:
            values = dense_values(grad)
            if values.numel():
                self._pending.append((name, values.abs().amax()))

        return hook

    def __enter__(self) -> GradientWatch:
        for name, param in self.model.named_parameters():
            if param.requires_grad:
                self._handles.append(param.register_hook(self._hook(name)))
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        if exc is None:
            self._drain()
        # When the body raised, the maxima stay pending: `.alerts` reads them later, and no host
        # read here can replace the body's exception with another one.

    @property
    def active(self) -> bool:
        """Whether hooks are installed right now."""
        return bool(self._handles)

    def _drain(self) -> None:
        if not self._pending:
            return
        names = [n for n, _ in self._pending]
        maxes = host_floats([m for _, m in self._pending])
        self._pending.clear()
        self.seen += len(names)
        for name, m in zip(names, maxes):
            if not math.isfinite(m):
                self._alerts.append(GradientAlert(name, "non-finite", m))
            elif m > self.max_abs:
                self._alerts.append(GradientAlert(name, "large", m))

    @property
    def alerts(self) -> list[GradientAlert]:
        """Every alert so far, in the order the gradients arrived."""
        self._drain()
        return list(self._alerts)

    def _rows(self) -> list[list[object]]:
        return [[a.name, a.kind, a.max_abs] for a in self.alerts]

    def __repr__(self) -> str:
        rows = self._rows()  # drains pending maxima first, so the counts below are current
        head = (
            f"GradientWatch({len(self._handles)} hooks active, {self.seen} gradients seen, "
            f"{len(self._alerts)} alerts, max_abs={self.max_abs:g})"
        )
        return head if not rows else head + "\n" + text_table(["name", "kind", "max_abs"], rows)

    def _repr_html_(self) -> str:
        rows = self._rows()
        caption = f"gradient watch: {self.seen} gradients seen, {len(rows)} alerts"
        return html_report_table(["name", "kind", "max_abs"], rows, caption=caption, status_column="kind")


def watch_gradients(model: nn.Module, max_abs: float = EXPLODING) -> GradientWatch:
    """`with watch_gradients(model) as watch: loss.backward()` then look at `watch.alerts`."""
    return GradientWatch(model, max_abs)
