"""Fixed operators kept in buffers: a Gaussian blur whose kernel is a buffer named `weight`, applied with
F.conv2d before the trained layers (the widely copied smoothing layer)."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from healthy.loop import Healthy, Loop, data, evaluate, plain


class GaussianSmoothing(nn.Module):
    """A depthwise 3x3 Gaussian blur: its kernel is a buffer, fixed on purpose."""

    def __init__(self, channels: int, sigma: float = 1.0) -> None:
        super().__init__()
        grid = torch.arange(3, dtype=torch.float32) - 1
        g = torch.exp(-(grid**2) / (2 * sigma**2))
        kernel = torch.outer(g, g) / torch.outer(g, g).sum()
        self.register_buffer("weight", kernel.expand(channels, 1, 3, 3).clone())
        self.channels = channels

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.conv2d(x, weight=self.weight, padding=1, groups=self.channels)


def smoothed_cnn() -> Loop:
    torch.manual_seed(0)
    model = nn.Sequential(
        GaussianSmoothing(2), nn.Conv2d(2, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 3)
    )
    x = data(12, 32, 2, 6, 6)
    y = (x.mean((1, 2, 3)) > 0).long() + (x[:, 0].mean((1, 2)) > 0).long()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss = lambda: F.cross_entropy(model(x), y)  # noqa: E731
    return Loop(plain(optimizer, loss), model, optimizer, lambda: evaluate(model, loss))


LOOPS = (Healthy("smoothed_cnn", smoothed_cnn),)
