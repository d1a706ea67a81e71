"""Schedules that follow their own design: sized in batches and stepped per batch, or per epoch."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from healthy.common import epoch_stepped
from healthy.loop import Healthy, Loop, data, evaluate


def _problem() -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    x = data(21, 64, 6)
    return model, x, (x @ data(22, 6, 3)).argmax(1)


def _per_batch(model: nn.Module, x: torch.Tensor, y: torch.Tensor, optimizer, scheduler, ahead: int) -> Loop:
    """A step that steps the schedule once per batch, `ahead` batches into training already."""
    for _ in range(ahead):  # mid-training: the schedule has run that far
        optimizer.step()
        scheduler.step()

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
        return loss.detach()

    metric = lambda: evaluate(model, lambda: F.cross_entropy(model(x), y))  # noqa: E731
    return Loop(step, model, optimizer, metric, schedulers=[scheduler])


def one_cycle_per_batch() -> Loop:
    """OneCycleLR sized in batches (epochs x steps_per_epoch), late in its decay."""
    model, x, y = _problem()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.3, epochs=10, steps_per_epoch=20)
    return _per_batch(model, x, y, optimizer, scheduler, ahead=150)


def warm_up_then_linear_decay() -> Loop:
    """A linear warm-up then a linear decay to 0, sized in batches (get_linear_schedule_with_warmup)."""
    model, x, y = _problem()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-2)
    warm, total = 20, 300

    def factor(k: int) -> float:
        return k / warm if k < warm else max(0.0, (total - k) / (total - warm))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
    return _per_batch(model, x, y, optimizer, scheduler, ahead=150)


def cosine_per_epoch_near_end() -> Loop:
    """CosineAnnealingLR over 30 epochs, stepped once an epoch (every fourth batch), at epoch 27."""
    model, x, y = _problem()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=30)
    for _ in range(27):
        optimizer.step()
        scheduler.step()
    batch = {"i": 2}  # mid-epoch: the second call of the step ends the epoch
    return epoch_stepped(model, x, y, optimizer, scheduler, batch)


LOOPS = (
    Healthy("one_cycle_per_batch", one_cycle_per_batch),
    Healthy("warm_up_then_linear_decay", warm_up_then_linear_decay),
    Healthy("cosine_per_epoch_near_end", cosine_per_epoch_near_end),
)
