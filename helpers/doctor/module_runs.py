"""Which modules ran during one step, and how: for each of the model's modules, whether it ran,
with grad mode on, and whether its output required grad (where a path to the loss is cut); and
the modules with trainable parameters that ran although neither the model nor an optimizer the
step uses holds them. A layer created inside forward (`nn.Conv2d(...)(x)`) is one: a new object,
freshly initialised, at every call, so nothing ever trains it.

Process-wide forward hooks (torch.nn.modules.module.register_module_forward_pre_hook and
register_module_forward_hook) see every module that runs while the step does; they are removed
when the step ends. A teacher network outside the model is the same object at every step, so
only modules made anew are a finding.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

__all__ = ["ModuleRun", "ModuleRuns", "fresh_lines"]


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


@dataclass
class ModuleRun:
    """How one of the model's modules ran in a step: calls, with grad mode on, output requiring grad."""

    calls: int = 0
    grad_on: bool = False
    output_requires_grad: bool = False

    def __repr__(self) -> str:
        flags = f"grad_on={self.grad_on}, output_requires_grad={self.output_requires_grad}"
        return f"ModuleRun({self.calls} call(s), {flags})"


def _requires_grad(output: Any) -> bool:
    """Whether a module's output (a tensor, or a tuple, list or dict of them) holds one that requires grad."""
    if isinstance(output, torch.Tensor):
        return output.requires_grad
    if isinstance(output, (tuple, list)):
        return any(isinstance(t, torch.Tensor) and t.requires_grad for t in output)
    if isinstance(output, dict):
        return any(isinstance(t, torch.Tensor) and t.requires_grad for t in output.values())
    return False


class ModuleRuns:
    """Records, during one step, how each of the model's modules ran (`.runs`, by name) and the modules
    with parameters that require grad which ran although neither the model nor an optimizer holds
    them (`.seen`: module, where it was called)."""

    def __init__(self, model: nn.Module, optimizers: Iterable[torch.optim.Optimizer]) -> None:
        self.names = {id(m): n for n, m in model.named_modules()}
        self.held = {id(p) for o in optimizers for g in o.param_groups for p in g["params"]}
        self.seen: dict[int, tuple[nn.Module, str]] = {}
        self.runs: dict[str, ModuleRun] = {}
        self._handles: list[Any] = []

    def _pre(self, module: nn.Module, args: tuple) -> None:
        if id(module) in self.names or id(module) in self.seen or not torch.is_grad_enabled():
            return  # under no_grad (a target network copied each step) it builds no graph: not ours
        params = [p for p in module.parameters(recurse=False) if p.requires_grad]
        if params and not any(id(p) in self.held for p in params):
            self.seen[id(module)] = (module, _caller(self.names))

    def _post(self, module: nn.Module, args: tuple, output: Any) -> None:
        name = self.names.get(id(module))
        if name is None:
            return
        run = self.runs.setdefault(name, ModuleRun())
        run.calls += 1
        run.grad_on |= torch.is_grad_enabled()
        run.output_requires_grad |= _requires_grad(output)

    def __enter__(self) -> ModuleRuns:
        self._handles = [
            nn.modules.module.register_module_forward_pre_hook(self._pre),
            nn.modules.module.register_module_forward_hook(self._post),
        ]
        return self

    def __exit__(self, *exc: object) -> None:
        for handle in self._handles:
            handle.remove()

    def made_anew(self, before: ModuleRuns | None) -> list[tuple[nn.Module, str]]:
        """This step's foreign modules when the step before also ran some and none is the same
        object: they are created at every call. [] otherwise (e.g. a teacher run every step)."""
        if before is None or not before.seen or not self.seen or self.seen.keys() & before.seen.keys():
            return []
        return list(self.seen.values())

    def __repr__(self) -> str:
        return f"ModuleRuns({len(self.runs)} of the model's modules ran, {len(self.seen)} outside it)"


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
