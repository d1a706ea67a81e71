"""What a step did beyond the model and its optimizer: every optimizer.step() that ran (any
optimizer, e.g. a GAN's other one), and the model's modules that ran with grad mode off
inside a forward that had it on (a reentrant torch.utils.checkpoint)."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn
from torch.nn.modules.module import register_module_forward_pre_hook

from helpers.doctor.discover import find_schedulers
from helpers.doctor.state import TrainingState

__all__ = ["OptimizerStep", "StepLog"]

_optim = importlib.import_module("torch.optim.optimizer")
_CHECKPOINT_FILE = "torch/utils/checkpoint.py"
_TORCH_DIR = os.path.dirname(torch.__file__).replace("\\", "/") + "/"


@dataclass(frozen=True)
class OptimizerStep:
    """One optimizer.step() call: the optimizer and the parameters it updated in place."""

    optimizer: str  # its class name
    given: bool  # the optimizer passed to diagnose
    params: tuple[tuple[str, tuple[int, ...]], ...]  # (name in the model or "<outside the model>", shape)

    def __repr__(self) -> str:
        return f"OptimizerStep({self.optimizer}, {len(self.params)} parameters)"


@dataclass
class StepLog:
    """Hooks for one step: a process-wide optimizer step pre-hook and module forward pre-hook."""

    model: nn.Module
    optimizer: torch.optim.Optimizer
    state: TrainingState
    train_step: Callable[[], Any] = tuple  # where another optimizer's schedulers are looked for
    steps: list[OptimizerStep] = field(default_factory=list)
    checkpointed: dict[str, str] = field(default_factory=dict)  # module -> where the checkpoint was called
    _handles: list[Any] = field(default_factory=list)
    _names: dict[int, str] = field(default_factory=dict)
    _depth: int = 0  # model forwards under way
    _grad_on: bool = True  # grad mode when the model's outermost forward began

    def __enter__(self) -> StepLog:
        self._names = {id(p): n for n, p in self.model.named_parameters()}
        self._modules = {id(m): n for n, m in self.model.named_modules()}
        self._handles.append(_optim.register_optimizer_step_pre_hook(self._on_step))
        self._handles.append(register_module_forward_pre_hook(self._on_forward))
        self._handles.append(self.model.register_forward_hook(self._left, always_call=True))
        return self

    def __exit__(self, *exc: object) -> None:
        for h in self._handles:
            h.remove()
        self._handles.clear()

    def _on_step(self, optimizer: torch.optim.Optimizer, args: tuple, kwargs: dict) -> None:
        params = [p for g in optimizer.param_groups for p in g["params"]]
        if optimizer is self.optimizer:
            for p in params:
                if id(p) in self._names:
                    self.state.keep(p)
        else:  # another optimizer may move the model's parameters first, and has its own state
            self.state.keep_other(optimizer, lambda: find_schedulers(optimizer, self.train_step))
        named = tuple((self._names.get(id(p), "<outside the model>"), tuple(p.shape)) for p in params)
        self.steps.append(OptimizerStep(type(optimizer).__name__, optimizer is self.optimizer, named))

    def _on_forward(self, module: nn.Module, args: tuple) -> None:
        name = self._modules.get(id(module))
        if name is None:
            return
        if _writes_itself(module):  # copied before the forward writes it, so diagnose can put it back
            for p in module.parameters(recurse=False):
                self.state.keep(p)
        if module is self.model:
            if self._depth == 0:
                self._grad_on = torch.is_grad_enabled()
            self._depth += 1
            return
        if self._depth and self._grad_on and not torch.is_grad_enabled() and name not in self.checkpointed:
            where = _checkpoint_caller(self._modules)
            if where is not None:
                self.checkpointed[name] = where

    def _left(self, module: nn.Module, args: tuple, output: Any) -> None:
        self._depth = max(0, self._depth - 1)

    def __repr__(self) -> str:
        return f"StepLog({len(self.steps)} optimizer steps, {len(self.checkpointed)} checkpointed modules)"


def _writes_itself(module: nn.Module) -> bool:
    """Whether a module's forward may write its own parameters in place: Embedding(max_norm=...)
    renormalises the rows it looks up; a forward hook or pre-hook may write anything."""
    renorm = isinstance(module, (nn.Embedding, nn.EmbeddingBag)) and module.max_norm is not None
    return renorm or bool(module._forward_pre_hooks or module._forward_hooks)


def _checkpoint_caller(modules: dict[int, str]) -> str | None:
    """Where torch.utils.checkpoint was called, if the current call runs inside one: the module
    whose forward called it ("the forward of 'layers.0'"), else the function's name."""
    frame = sys._getframe(2)
    inside = False
    while frame is not None:
        file = frame.f_code.co_filename.replace("\\", "/")
        if file.endswith(_CHECKPOINT_FILE):
            inside = True
        elif inside and not file.startswith(_TORCH_DIR):
            owner = frame.f_locals.get("self")
            name = modules.get(id(owner)) if isinstance(owner, nn.Module) else None
            if name is not None:
                return f"the forward of {name!r}" if name else "the model's forward"
            return f"{frame.f_code.co_name}()"
        frame = frame.f_back
    return None
