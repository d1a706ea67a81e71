"""Conditional computation: parts of the model that, by design, do not run at every step."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from healthy.loop import Healthy, Loop, data, evaluate, plain


class TopOneExperts(nn.Module):
    """A mixture of experts with top-1 routing: an expert no token is routed to does not run."""

    def __init__(self, d: int = 6, k: int = 4) -> None:
        super().__init__()
        self.router = nn.Linear(d, k)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(d, 16), nn.ReLU(), nn.Linear(16, 3)) for _ in range(k)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, choice = F.softmax(self.router(x), dim=1).max(1)
        out = x.new_zeros(x.shape[0], 3)
        for i, expert in enumerate(self.experts):
            routed = choice == i
            if routed.any():
                out[routed] = expert(x[routed]) * gate[routed, None]
        return out


def mixture_of_experts_top1() -> Loop:
    torch.manual_seed(0)
    model = TopOneExperts()
    x = data(28, 96, 6)
    y = (x @ data(29, 6, 3)).argmax(1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    batch = {"i": 0}

    def loss() -> torch.Tensor:
        i = batch["i"]
        batch["i"] = (i + 1) % 24
        return F.cross_entropy(model(x[i * 4 : i * 4 + 4]), y[i * 4 : i * 4 + 4])  # 4 tokens, 4 experts

    def metric() -> float:
        return evaluate(model, lambda: F.cross_entropy(model(x), y))

    return Loop(plain(optimizer, loss), model, optimizer, metric, {"conditional": ["experts"]}, [batch])


class Block(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.f = nn.Sequential(nn.Linear(d, d), nn.Tanh())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.f(x)


class StochasticDepth(nn.Module):
    """Residual blocks dropped whole during training with probability 0.5 (Huang et al. 2016)."""

    def __init__(self, d: int = 8, depth: int = 4) -> None:
        super().__init__()
        self.inp = nn.Linear(6, d)
        self.blocks = nn.ModuleList(Block(d) for _ in range(depth))
        self.out = nn.Linear(d, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.inp(x)
        for block in self.blocks:
            if not self.training:
                h = h + 0.5 * block.f(h)
            elif torch.rand(()) < 0.5:
                h = block(h)
        return self.out(h)


def stochastic_depth() -> Loop:
    torch.manual_seed(0)
    model = StochasticDepth()
    x = data(30, 64, 6)
    y = (x @ data(31, 6, 3)).argmax(1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss = lambda: F.cross_entropy(model(x), y)  # noqa: E731
    return Loop(
        plain(optimizer, loss), model, optimizer, lambda: evaluate(model, loss), {"conditional": ["blocks"]}
    )


LOOPS = (
    Healthy("mixture_of_experts_top1", mixture_of_experts_top1),
    Healthy("stochastic_depth", stochastic_depth),
)
