"""Fixed state kept in buffers: a Gaussian blur whose kernel is a buffer named `weight`, applied with
F.conv2d before the trained layers (the widely copied smoothing layer), and a Bayes-by-backprop layer
whose prior's mean and sigma are buffers beside the posterior's trained mean and rho."""

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


class BayesLinear(nn.Module):
    """A linear layer with a Gaussian posterior over its weight (trained) and a fixed Gaussian prior."""

    def __init__(self, n_in: int, n_out: int) -> None:
        super().__init__()
        self.weight_mu = nn.Parameter(torch.randn(n_out, n_in) * n_in**-0.5)
        self.weight_rho = nn.Parameter(torch.full((n_out, n_in), -5.0))
        self.bias = nn.Parameter(torch.zeros(n_out))
        self.register_buffer("prior_mu", torch.zeros(()))
        self.register_buffer("prior_sigma", torch.ones(()))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training:
            return F.linear(x, self.weight_mu, self.bias)
        sigma = F.softplus(self.weight_rho)
        weight = self.weight_mu + sigma * torch.randn_like(sigma)
        return F.linear(x, weight, self.bias)

    def kl(self) -> torch.Tensor:
        sigma = F.softplus(self.weight_rho)
        ratio = (sigma**2 + (self.weight_mu - self.prior_mu) ** 2) / (2 * self.prior_sigma**2)
        return (torch.log(self.prior_sigma / sigma) + ratio - 0.5).sum()


def bayes_by_backprop() -> Loop:
    torch.manual_seed(0)
    first, second = BayesLinear(4, 16), BayesLinear(16, 1)
    model = nn.Sequential(first, nn.ReLU(), second)
    x = data(13, 64, 4)
    y = x[:, :1] - 0.5 * x[:, 1:2]
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    fit = lambda: F.mse_loss(model(x), y)  # noqa: E731
    loss = lambda: fit() + 1e-4 * (first.kl() + second.kl())  # noqa: E731
    return Loop(plain(optimizer, loss), model, optimizer, lambda: evaluate(model, fit))


LOOPS = (Healthy("smoothed_cnn", smoothed_cnn), Healthy("bayes_by_backprop", bayes_by_backprop))
