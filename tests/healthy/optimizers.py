"""Several optimizers in one step, and an optimizer that stops by itself (L-BFGS)."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from healthy.loop import Healthy, Loop, data, evaluate


class Recommender(nn.Module):
    """A sparse embedding (SparseAdam) and a dense head (Adam)."""

    def __init__(self) -> None:
        super().__init__()
        self.items = nn.Embedding(30, 8, sparse=True)
        self.head = nn.Linear(8, 1)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.items(ids)).squeeze(1)


def _two(model: nn.Module, first: torch.optim.Optimizer, second: torch.optim.Optimizer, loss) -> Loop:
    def step() -> torch.Tensor:
        first.zero_grad()
        second.zero_grad()
        value = loss()
        value.backward()
        first.step()
        second.step()
        return value.detach()

    return Loop(step, model, [first, second], lambda: evaluate(model, loss))


def sparse_adam_beside_adam() -> Loop:
    torch.manual_seed(0)
    model = Recommender()
    ids = torch.arange(30).repeat(2)
    y = data(23, 30).repeat(2)
    sparse = torch.optim.SparseAdam(list(model.items.parameters()), lr=5e-2)
    dense = torch.optim.Adam(model.head.parameters(), lr=5e-2)
    return _two(model, dense, sparse, lambda: F.mse_loss(model(ids), y))


def muon_beside_adamw() -> Loop:
    """Muon for the hidden matrices, AdamW for the rest (embeddings, biases, the output layer)."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))
    x = data(24, 64, 6)
    y = (x @ data(25, 6, 3)).argmax(1)
    hidden = [model[2].weight]
    rest = [p for p in model.parameters() if all(p is not h for h in hidden)]
    muon = torch.optim.Muon(hidden, lr=2e-2)
    adamw = torch.optim.AdamW(rest, lr=1e-2)
    return _two(model, adamw, muon, lambda: F.cross_entropy(model(x), y))


def lbfgs_converged() -> Loop:
    """Least squares by L-BFGS: after it converges, a step leaves the parameters where they are."""
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    x = data(26, 64, 4)
    y = x @ data(27, 4, 1) + 0.5
    optimizer = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=50, line_search_fn="strong_wolfe")

    def closure() -> torch.Tensor:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        return loss

    def step() -> torch.Tensor:
        return optimizer.step(closure).detach()

    loop = Loop(step, model, optimizer, lambda: evaluate(model, lambda: F.mse_loss(model(x), y)))
    return loop


def lbfgs_after_convergence() -> Loop:
    loop = lbfgs_converged()
    for _ in range(3):
        loop.step()
    return loop


LOOPS = (
    Healthy("sparse_adam_beside_adam", sparse_adam_beside_adam),
    Healthy("muon_beside_adamw", muon_beside_adamw),
    Healthy("lbfgs_converging", lbfgs_converged, train_steps=1),
    Healthy("lbfgs_after_convergence", lbfgs_after_convergence, train_steps=0),
)
