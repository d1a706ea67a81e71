"""TinyNet, the model of the bug challenge, and a small reproducible regression problem."""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["TinyNet", "make_tiny_problem"]


class TinyNet(nn.Module):
    """4 -> 8 -> 1 with a ReLU between the two linear layers."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__()
        with torch.random.fork_rng(devices=[], enabled=seed is not None):
            if seed is not None:
                torch.manual_seed(seed)
            self.fc1 = nn.Linear(4, 8)
            self.fc2 = nn.Linear(8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """fc2(relu(fc1(x)))."""
        return self.fc2(torch.relu(self.fc1(x)))


def make_tiny_problem(
    seed: int = 0, n: int = 16, device: str | torch.device = "cpu"
) -> tuple[torch.Tensor, torch.Tensor]:
    """(inputs [n, 4], targets [n, 1]): a learnable target plus a little noise; global RNG untouched."""
    if n < 1:
        raise ValueError(f"expected n >= 1 samples, got {n}")
    g = torch.Generator().manual_seed(seed)
    inputs = torch.randn(n, 4, generator=g)
    teacher = torch.randn(4, 1, generator=g)
    targets = torch.relu(inputs @ teacher) - 0.5 * inputs[:, :1] + 0.05 * torch.randn(n, 1, generator=g)
    return inputs.to(device), targets.to(device)
