"""Small models and states shared by the unit tests (imported by name, not collected)."""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["ModelState", "deep_linear_stack", "model_state", "status_zoo"]


def deep_linear_stack(layers: int = 100, width: int = 16, seed: int = 0) -> nn.Sequential:
    """`layers` x Linear(width, width): 2 * layers parameter tensors."""
    torch.manual_seed(seed)
    return nn.Sequential(*[nn.Linear(width, width) for _ in range(layers)])


class StatusZoo(nn.Module):
    """One parameter per GradStatus, each put there by a real backward pass."""

    def __init__(self) -> None:
        super().__init__()
        self.frozen = nn.Linear(3, 3)  # FROZEN: requires_grad switched off
        self.frozen.requires_grad_(False)
        self.unused = nn.Linear(3, 3)  # NO_GRAD: never called in forward
        self.sqrt_scale = nn.Parameter(torch.zeros(3))  # NON_FINITE_GRAD: sqrt at 0
        self.forgotten = nn.Linear(3, 3)  # NOT_IN_OPTIMIZER: trains, but not optimized
        self.dead = nn.Linear(3, 3)  # ZERO_GRAD: feeds a ReLU whose units are all dead
        with torch.no_grad():
            self.dead.weight.zero_()
            self.dead.bias.fill_(-1.0)
        self.live = nn.Linear(3, 1)  # OK

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """A sum of branches, one per status."""
        h = self.frozen(x) + self.forgotten(x) + torch.relu(self.dead(x))
        return self.live(h).sum() + self.sqrt_scale.sqrt().sum()

    def optimizer(self) -> torch.optim.Optimizer:
        """SGD over every parameter except `forgotten`'s."""
        params = [p for n, p in self.named_parameters() if not n.startswith("forgotten.")]
        return torch.optim.SGD(params, lr=0.1)


def status_zoo() -> tuple[StatusZoo, torch.optim.Optimizer]:
    """The zoo after one backward pass, and its optimizer (which misses `forgotten`)."""
    torch.manual_seed(0)
    model = StatusZoo()
    opt = model.optimizer()
    model(torch.randn(5, 3)).backward()
    return model, opt


class ModelState:
    """Everything a read-only helper must leave alone: values, grads, their storage, flags."""

    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer | None = None) -> None:
        named = list(model.named_parameters())
        self.flags = [(n, p.requires_grad, len(p._backward_hooks or {})) for n, p in named]
        self.values = [p.detach().clone() for _, p in named]
        self.grad_ptrs = [None if p.grad is None else (id(p.grad), _storage(p.grad)) for _, p in named]
        self.grads = [None if p.grad is None else _dense_copy(p.grad) for _, p in named]
        self.training = model.training
        self.optimizer = None if optimizer is None else repr(optimizer.state_dict())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ModelState):
            return NotImplemented
        return (
            (self.flags, self.grad_ptrs, self.training, self.optimizer)
            == (other.flags, other.grad_ptrs, other.training, other.optimizer)
            and all(map(_same_values, self.values, other.values))
            and all(map(_same_values, self.grads, other.grads))
        )

    def __repr__(self) -> str:
        return f"ModelState({len(self.flags)} parameters)"


def model_state(model: nn.Module, optimizer: torch.optim.Optimizer | None = None) -> ModelState:
    """A comparable record of the model's (and optimizer's) state."""
    return ModelState(model, optimizer)


def _storage(t: torch.Tensor) -> int:
    return t._values().data_ptr() if t.is_sparse else t.data_ptr()


def _dense_copy(t: torch.Tensor) -> torch.Tensor:
    return t.detach().to_dense().clone() if t.is_sparse else t.detach().clone()


def _same_values(a: torch.Tensor | None, b: torch.Tensor | None) -> bool:
    """Equal values, NaN equal to NaN in the same places; None only equals None."""
    if a is None or b is None:
        return a is b
    return torch.equal(a.isnan(), b.isnan()) and torch.equal(a.nan_to_num(), b.nan_to_num())
