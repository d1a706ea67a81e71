"""One corpus case: where it was reported, its stated cause, and the finding it must produce."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from helpers import Stage


@dataclass
class Setup:
    """What a reproduction hands to the toolkit: the user's step, model, optimizer, diagnose options."""

    step: Callable[[], Any]
    model: nn.Module
    optimizer: torch.optim.Optimizer | None = None
    options: dict[str, Any] = field(default_factory=dict)
    cleanup: Callable[[], None] | None = None

    def __repr__(self) -> str:
        return f"Setup({type(self.model).__name__}, {type(self.optimizer).__name__})"


@dataclass(frozen=True)
class Case:
    """A public bug report, reproduced; the expected finding is data, fixed before the toolkit runs.

    tool "diagnose": the Diagnosis's stage is `stage` and its evidence and advice contain every
    string of `names`. tool "watch": watch_non_finite runs `step` and its first event names
    every string of `names` (stage is the stage that finding belongs to).
    """

    key: str
    url: str  # the thread, exactly as the search tool returned it
    cause: str  # the cause the thread states
    stage: Stage
    names: tuple[str, ...]  # what the finding must name (module, parameter, Function, call)
    build: Callable[[], Setup]
    tool: str = "diagnose"
    # what the toolkit said the first time it ran on this case, recorded as is before any change made
    # for it: "named", "in part" (this stage, without naming the cause), "wrong stage" (another finding)
    # or "OK"; "" where it was not recorded
    first_run: str = ""

    def __repr__(self) -> str:
        return f"Case({self.key}: {self.stage.name}, names {self.names})"


def regression(seed: int = 0, n: int = 16, d: int = 4) -> tuple[torch.Tensor, torch.Tensor]:
    """A tiny regression problem, the same every run."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, d, generator=g), torch.randn(n, 1, generator=g)


def mlp(d: int = 4, h: int = 8, seed: int = 0) -> nn.Sequential:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(d, h), nn.ReLU(), nn.Linear(h, 1))


def loss_step(
    optimizer: torch.optim.Optimizer, loss_of: Callable[[], torch.Tensor]
) -> Callable[[], torch.Tensor]:
    """A step in the right order around a loss: zero_grad, the loss, backward, step; it returns the loss."""

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = loss_of()
        loss.backward()
        optimizer.step()
        return loss

    return step


def plain_step(model: nn.Module, optimizer: torch.optim.Optimizer, x: torch.Tensor, y: torch.Tensor):
    """The correct step, for cases whose bug is elsewhere."""
    return loss_step(optimizer, lambda: ((model(x) - y) ** 2).mean())
