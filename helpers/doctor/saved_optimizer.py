"""One optimizer's own state saved and put back: its param groups and its per-parameter state
(Adam's moments and step count, SGD's momentum buffers), restored in place."""

from __future__ import annotations

import copy
from typing import Any

import torch

__all__ = ["SavedOptimizer", "copy_group", "save_tensor"]


def save_tensor(t: torch.Tensor) -> torch.Tensor:
    """A detached copy with t's layout: in host memory when t lives on an accelerator (pinned on
    CUDA, so the copies back are fast), else beside t."""
    t = t.detach()
    if t.device.type == "cpu":
        return t.clone()
    pin = t.device.type == "cuda"
    if t.is_non_overlapping_and_dense():
        host = torch.empty_strided(t.size(), t.stride(), dtype=t.dtype, device="cpu", pin_memory=pin)
    else:
        host = torch.empty(t.size(), dtype=t.dtype, device="cpu", pin_memory=pin)
    return host.copy_(t)


def _clone(value: Any) -> Any:
    return save_tensor(value) if isinstance(value, torch.Tensor) else copy.deepcopy(value)


def copy_group(group: dict[str, Any]) -> dict[str, Any]:
    """A param group's entries, copied: the params list shallowly (same tensors), the rest cloned."""

    def one(k: str, v: Any) -> Any:
        if k == "params":
            return list(v)
        return v.detach().clone() if isinstance(v, torch.Tensor) else copy.deepcopy(v)

    return {k: one(k, v) for k, v in group.items()}


class SavedOptimizer:
    """An optimizer's param groups (copied now: small) and its state (copied by `keep_state()`,
    once, just before its first step, when the step's activations are already freed)."""

    @torch.no_grad()
    def __init__(self, optimizer: torch.optim.Optimizer) -> None:
        self.optimizer = optimizer
        self.groups = [(g, copy_group(g)) for g in optimizer.param_groups]
        self.state: dict[Any, tuple[dict, dict]] | None = None

    @torch.no_grad()
    def keep_state(self) -> None:
        """Copy the per-parameter state, once; an entry created later is dropped at restore."""
        if self.state is None:
            self.state = {
                p: (entry, {k: (v, _clone(v)) for k, v in entry.items()})
                for p, entry in self.optimizer.state.items()
            }

    @torch.no_grad()
    def restore(self) -> None:
        """The same group dicts and state tensors as before, holding the saved values."""
        self.optimizer.param_groups[:] = [g for g, _ in self.groups]
        for g, saved in self.groups:
            g.clear()
            g.update(copy_group(saved))
        if self.state is None:
            return
        self.optimizer.state.clear()
        for p, (entry, saved_entry) in self.state.items():
            entry.clear()
            for k, (original, value) in saved_entry.items():
                if isinstance(original, torch.Tensor):
                    original.copy_(value)
                    entry[k] = original
                else:
                    entry[k] = copy.deepcopy(value)
            self.optimizer.state[p] = entry

    def __repr__(self) -> str:
        kept = "not yet" if self.state is None else f"{len(self.state)} entries"
        return f"SavedOptimizer({type(self.optimizer).__name__}, {len(self.groups)} groups, state {kept})"
