"""Mixed precision on the CPU: bfloat16 autocast, and float16 autocast with a GradScaler."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from healthy.loop import Healthy, Loop, data, evaluate


def _problem() -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 32), nn.LayerNorm(32), nn.GELU(), nn.Linear(32, 3))
    x = data(32, 64, 6)
    return model, x, (x @ data(33, 6, 3)).argmax(1)


def bfloat16_autocast() -> Loop:
    model, x, y = _problem()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)

    def loss() -> torch.Tensor:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return F.cross_entropy(model(x).float(), y)

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        value = loss()
        value.backward()
        optimizer.step()
        return value.detach()

    return Loop(step, model, optimizer, lambda: evaluate(model, loss))


def float16_grad_scaler() -> Loop:
    """The standard AMP recipe, with clipping after unscale_, on the CPU."""
    model, x, y = _problem()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10)

    def loss() -> torch.Tensor:
        with torch.autocast("cpu", dtype=torch.float16):
            return F.cross_entropy(model(x).float(), y)

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        value = loss()
        scaler.scale(value).backward()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        scaler.step(optimizer)
        scaler.update()
        return value.detach()

    return Loop(step, model, optimizer, lambda: evaluate(model, loss))


LOOPS = (
    Healthy("bfloat16_autocast", bfloat16_autocast),
    Healthy("float16_grad_scaler", float16_grad_scaler),
)
