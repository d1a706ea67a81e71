"""One healthy training loop: what the toolkit is handed, and how to tell that it trains."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn


@dataclass
class Loop:
    """A correct loop: the user's step, the model and optimizer(s) given to diagnose, its options, and a
    validation metric (lower is better) that falls when the loop trains."""

    step: Callable[[], Any]
    model: nn.Module
    optimizer: Any  # an optimizer, or a list of them
    metric: Callable[[], float]
    options: dict[str, Any] = field(default_factory=dict)
    counters: Sequence[dict[str, Any]] = ()  # the loop's own Python state (a batch index): not the toolkit's
    schedulers: Sequence[Any] = ()  # learning-rate schedulers the step uses
    given: Any = None  # what diagnose is handed as the optimizer, when not `optimizer` (found in the step)

    def __repr__(self) -> str:
        return f"Loop({type(self.model).__name__}, {len(self.options)} options)"


@dataclass(frozen=True)
class Healthy:
    """A healthy loop by name: its builder, and how many steps show it training."""

    key: str
    build: Callable[[], Loop]
    train_steps: int = 12

    def __repr__(self) -> str:
        return f"Healthy({self.key})"


def data(seed: int, *shape: int) -> torch.Tensor:
    """Fixed random data, the same every run."""
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def evaluate(model: nn.Module, fn: Callable[[], torch.Tensor]) -> float:
    """fn() under no_grad in eval mode, the model's mode restored after."""
    was = model.training
    model.eval()
    try:
        with torch.no_grad():
            return float(fn())
    finally:
        model.train(was)


def plain(optimizer: torch.optim.Optimizer, loss: Callable[[], torch.Tensor]) -> Callable[[], torch.Tensor]:
    """zero_grad, loss, backward, step."""

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        value = loss()
        value.backward()
        optimizer.step()
        return value.detach()

    return step
