"""The learning-rate schedulers, GradScalers and other optimizers a training step uses, found without
being passed."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable
from typing import Any

import torch

__all__ = ["find_optimizers", "find_scalers", "find_schedulers"]

GradScaler = torch.amp.GradScaler
LRScheduler = torch.optim.lr_scheduler.LRScheduler
Optimizer = torch.optim.Optimizer


def find_schedulers(optimizer: torch.optim.Optimizer, train_step: Callable[[], Any]) -> list[Any]:
    """The learning-rate schedulers attached to this optimizer (their `.optimizer` is it).

    Those train_step refers to (closure, globals, bound method); when it refers to none, those
    the garbage collector knows, if a scheduler has wrapped optimizer.step (every one does).
    """
    found = [s for s in _referenced(train_step) if isinstance(s, LRScheduler) and s.optimizer is optimizer]
    if found or "_wrapped_by_lr_sched" not in getattr(optimizer.step, "__dict__", {}):
        return found
    for r in gc.get_referrers(optimizer):
        candidates = [r] if isinstance(r, LRScheduler) else []
        if isinstance(r, dict) and r.get("optimizer") is optimizer:
            candidates = [o for o in gc.get_referrers(r) if isinstance(o, LRScheduler)]
        found += [s for s in candidates if getattr(s, "optimizer", None) is optimizer and s not in found]
    return found


def _referenced(fn: Any, depth: int = 2) -> Iterable[Any]:
    """Objects a function refers to: closure cells, globals it names, a bound method's owner."""
    if depth < 0:
        return
    owner = getattr(fn, "__self__", None)
    if owner is not None:
        yield owner
        yield from vars(owner).values() if hasattr(owner, "__dict__") else ()
        fn = getattr(fn, "__func__", fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        return
    values = [c.cell_contents for c in (fn.__closure__ or ()) if _filled(c)]
    names = getattr(fn, "__globals__", {})
    values += [names[n] for n in code.co_names if n in names]
    for v in values:
        yield v
        if callable(v) and hasattr(v, "__code__") and depth > 0:
            yield from _referenced(v, depth - 1)


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:  # an empty cell
        return False
    return True


def find_scalers(train_step: Callable[[], Any]) -> list[GradScaler]:
    """The enabled GradScalers the training step refers to (closure, globals, bound method)."""
    found: list[GradScaler] = []
    for v in _referenced(train_step):
        if isinstance(v, GradScaler) and v.is_enabled() and v not in found:
            found.append(v)
    return found


def find_optimizers(train_step: Callable[[], Any], given: Optimizer) -> list[Optimizer]:
    """The optimizers other than `given` the training step refers to (a GAN's second one)."""
    found: list[Optimizer] = []
    for v in _referenced(train_step):
        if isinstance(v, Optimizer) and v is not given and all(v is not f for f in found):
            found.append(v)
    return found
