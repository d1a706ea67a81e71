"""Save and restore everything a training step changes, so a diagnosis leaves no trace."""

from __future__ import annotations

import copy
import random
import sys
from typing import Any

import torch
from torch import nn

__all__ = ["TrainingState"]


def _clone(value: Any) -> Any:
    return value.detach().clone() if isinstance(value, torch.Tensor) else copy.deepcopy(value)


def _copy_group(group: dict[str, Any]) -> dict[str, Any]:
    """A param group's entries, copied: the params list shallowly (same tensors), the rest cloned."""
    return {k: (list(v) if k == "params" else _clone(v)) for k, v in group.items()}


class TrainingState:
    """Parameters, their .grad, buffers, train/eval flags, optimizer state and RNG states.

    Tensors are restored in place (`copy_`), so every tensor object the caller holds (a
    parameter, its `.grad`, an Adam moment) is the same object afterwards, with the same values.
    """

    @torch.no_grad()
    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer) -> None:
        self.model, self.optimizer = model, optimizer
        params = list(model.parameters())
        self.params = [(p, p.detach().clone(), p.requires_grad) for p in params]
        self.grads = [(p, p.grad, None if p.grad is None else p.grad.detach().clone()) for p in params]
        self.buffers = [(b, b.detach().clone()) for b in model.buffers()]
        self.training = [(m, m.training) for m in model.modules()]
        self.groups = [(g, _copy_group(g)) for g in optimizer.param_groups]
        self.state = {
            p: (entry, {k: (v, _clone(v)) for k, v in entry.items()}) for p, entry in optimizer.state.items()
        }
        self.cpu_rng = torch.get_rng_state()
        self.cuda_rng = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None
        self.py_rng = random.getstate()
        numpy = sys.modules.get("numpy")
        self.np_rng = numpy.random.get_state() if numpy is not None else None

    @torch.no_grad()
    def restore(self) -> None:
        """Put every saved value back."""
        for p, value, requires_grad in self.params:
            p.copy_(value)
            p.requires_grad_(requires_grad)
        for p, grad, value in self.grads:
            if grad is not None:
                grad.copy_(value)
            p.grad = grad
        for b, value in self.buffers:
            b.copy_(value)
        for m, training in self.training:
            m.training = training
        self.optimizer.param_groups[:] = [g for g, _ in self.groups]
        for g, saved in self.groups:
            g.clear()
            g.update(_copy_group(saved))
        self.optimizer.state.clear()
        for p, (entry, saved) in self.state.items():
            entry.clear()
            for k, (original, value) in saved.items():
                if isinstance(original, torch.Tensor):
                    original.copy_(value)
                    entry[k] = original
                else:
                    entry[k] = copy.deepcopy(value)
            self.optimizer.state[p] = entry
        torch.set_rng_state(self.cpu_rng)
        if self.cuda_rng is not None:
            torch.cuda.set_rng_state_all(self.cuda_rng)
        random.setstate(self.py_rng)
        numpy = sys.modules.get("numpy")
        if numpy is not None and self.np_rng is not None:
            numpy.random.set_state(self.np_rng)

    def __repr__(self) -> str:
        return (
            f"TrainingState({len(self.params)} parameters, {len(self.buffers)} buffers, "
            f"{len(self.state)} optimizer states)"
        )
