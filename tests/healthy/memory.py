"""Activation checkpointing of both kinds, and torch.compile."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.checkpoint import checkpoint

from healthy.loop import Healthy, Loop, data, evaluate, plain


class Checkpointed(nn.Module):
    def __init__(self, reentrant: bool) -> None:
        super().__init__()
        self.reentrant = reentrant
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Linear(8, 8), nn.GELU(), nn.Dropout(0.1)) for _ in range(3)
        )
        self.out = nn.Linear(8, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = x + (checkpoint(block, x, use_reentrant=self.reentrant) if self.training else block(x))
        return self.out(x)


def _checkpointed(reentrant: bool) -> Loop:
    torch.manual_seed(0)
    model = Checkpointed(reentrant)
    x = data(34, 64, 8)
    y = (x @ data(35, 8, 3)).argmax(1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

    def loss() -> torch.Tensor:
        inputs = x.clone().requires_grad_(True)  # an input that requires grad (an adversarial step needs it)
        return F.cross_entropy(model(inputs), y)

    return Loop(plain(optimizer, loss), model, optimizer, lambda: evaluate(model, loss))


def checkpoint_non_reentrant() -> Loop:
    return _checkpointed(reentrant=False)


def checkpoint_reentrant() -> Loop:
    return _checkpointed(reentrant=True)


def compiled_model() -> Loop:
    """torch.compile through AOTAutograd (the compiled forward and backward graphs) with eager kernels:
    inductor's kernels need a C++ toolchain and a minute on this CPU."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    compiled = torch.compile(model, backend="aot_eager")
    x = data(36, 64, 6)
    y = (x @ data(37, 6, 3)).argmax(1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.3)
    loss = lambda: F.cross_entropy(compiled(x), y)  # noqa: E731
    return Loop(plain(optimizer, loss), compiled, optimizer, lambda: evaluate(model, loss))


LOOPS = (
    Healthy("checkpoint_non_reentrant", checkpoint_non_reentrant),
    Healthy("checkpoint_reentrant", checkpoint_reentrant),
    Healthy("compiled_model", compiled_model),
)
