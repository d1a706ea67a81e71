"""Modules with trainable parameters that ran during a step but belong to nobody: not to the model,
not to any optimizer the step uses. A layer created inside forward (`nn.Conv2d(...)(x)`) is one:
a new object, freshly initialised, at every call, so nothing ever trains it.

A process-wide forward pre-hook (torch.nn.modules.module.register_module_forward_pre_hook) sees
every module that runs while the step does; it is removed when the step ends. A teacher network
outside the model is the same object at every step, so only modules made anew are a finding.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

import torch
from torch import nn

__all__ = ["ForeignModules", "fresh_lines"]


def _caller(names: dict[int, str]) -> str:
    """The model's innermost module whose forward is running, as "the forward of 'pool' (SoftPool)"."""
    frame: Any = sys._getframe(2)
    while frame is not None:
        owner = frame.f_locals.get("self")
        if isinstance(owner, nn.Module) and id(owner) in names:
            name = names[id(owner)]
            label = f"'{name}' ({type(owner).__name__})" if name else f"the model ({type(owner).__name__})"
            return f"the forward of {label}"
        frame = frame.f_back
    return "train_step's own code"


class ForeignModules:
    """Records, during one step, the modules with parameters that require grad which ran although
    neither the model nor an optimizer holds them: (module, where it was called)."""

    def __init__(self, model: nn.Module, optimizers: Iterable[torch.optim.Optimizer]) -> None:
        self.names = {id(m): n for n, m in model.named_modules()}
        self.held = {id(p) for o in optimizers for g in o.param_groups for p in g["params"]}
        self.seen: dict[int, tuple[nn.Module, str]] = {}
        self._handle: Any = None

    def _hook(self, module: nn.Module, args: tuple) -> None:
        if id(module) in self.names or id(module) in self.seen:
            return
        params = [p for p in module.parameters(recurse=False) if p.requires_grad]
        if params and not any(id(p) in self.held for p in params):
            self.seen[id(module)] = (module, _caller(self.names))

    def __enter__(self) -> ForeignModules:
        self._handle = nn.modules.module.register_module_forward_pre_hook(self._hook)
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.remove()

    def made_anew(self, before: ForeignModules | None) -> list[tuple[nn.Module, str]]:
        """This step's foreign modules when the step before also ran some and none is the same
        object: they are created at every call. [] otherwise (e.g. a teacher run every step)."""
        if before is None or not before.seen or not self.seen or self.seen.keys() & before.seen.keys():
            return []
        return list(self.seen.values())

    def __repr__(self) -> str:
        return f"ForeignModules({len(self.seen)} seen)"


def fresh_lines(fresh: list[tuple[nn.Module, str]]) -> tuple[list[str], list[str], str]:
    """Evidence, names and advice for modules with parameters created anew by every forward."""
    where: dict[str, list[str]] = {}
    for module, called in fresh:
        where.setdefault(called, []).append(repr(module))
    shown = "; ".join(f"{', '.join(labels[:4])} in {called}" for called, labels in where.items())
    lines = [
        f"the forward created modules with trainable parameters at each call: {shown}",
        "the previous step ran such modules too, none of them the same object: each call makes and "
        "initialises new weights, which are not in model.parameters() nor in an optimizer, so they "
        "never train (and state_dict() does not save them)",
    ]
    names = [f"{type(m).__name__} in {called}" for m, called in fresh]
    advice = (
        "Create layers once, in __init__ (self.conv = nn.Conv2d(...)), and only call them in forward; "
        "then build the optimizer from model.parameters()."
    )
    return lines, names, advice
