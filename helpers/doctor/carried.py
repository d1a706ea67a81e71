"""What a model keeps from one training step to the next that it should not: tensors with a
grad_fn held as module attributes (a cache or hidden state written with grad mode on), and
parameters a DistributedDataParallel wrapper was built with that its module no longer registers.

Both are read from the model's attributes, never by running anything; a learner can check each
by hand (`model.attention.cache_k.grad_fn`, `ddp._module_parameters[i] is ddp.module.w`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import torch
from torch import nn

from helpers.doctor.findings import names_text

__all__ = [
    "carried_graph_lines",
    "carried_graphs",
    "graph_attributes",
    "replaced_after_wrapping",
    "replaced_lines",
]


def _tensors(value: Any, path: str) -> Iterable[tuple[str, torch.Tensor]]:
    """A tensor attribute, or the tensors of a tuple or list attribute (an LSTM's (h, c))."""
    if isinstance(value, torch.Tensor):
        yield path, value
    elif isinstance(value, (tuple, list)) and len(value) <= 16:
        for i, v in enumerate(value):
            if isinstance(v, torch.Tensor):
                yield f"{path}[{i}]", v


def graph_attributes(model: nn.Module) -> list[tuple[str, torch.Tensor]]:
    """(attribute path, tensor) for every tensor a module holds as a plain attribute that has a
    grad_fn: it is part of the graph of the forward that made it, and stays so after that
    forward's backward freed the graph's saved values."""
    found = []
    for prefix, module in model.named_modules():
        for attr, value in vars(module).items():
            if attr.startswith("_"):  # nn.Module's own tables (_parameters, _buffers, hooks)
                continue
            found += [(p, t) for p, t in _tensors(value, f"{prefix}.{attr}" if prefix else attr) if t.grad_fn]
    return found


def carried_graphs(model: nn.Module, held_before: Iterable[torch.Tensor] = ()) -> list[tuple[str, str]]:
    """(attribute path, grad_fn name) of the graph_attributes a training step left behind: those
    not already held before the first step (a parameter copy made in __init__ is named elsewhere)."""
    before = {id(t) for t in held_before}
    return [(path, type(t.grad_fn).__name__) for path, t in graph_attributes(model) if id(t) not in before]


def _as_code(path: str) -> str:
    """An attribute path as Python reads it: layers.0.cache_k -> model.layers[0].cache_k."""
    return re.sub(r"\.(\d+)(?=\.|\[|$)", r"[\1]", f"model.{path}")


def carried_graph_lines(carried: list[tuple[str, str]]) -> tuple[list[str], str]:
    """Evidence and advice for a freed graph reached through state a module carries between steps."""
    shown = names_text([f"{path} (grad_fn={fn})" for path, fn in carried], 4)
    first = _as_code(carried[0][0])
    lines = [
        f"before this step ran, the model already held tensors with a grad_fn as module attributes: "
        f"{shown}: made with grad mode on by an earlier step's forward, they are part of its graph "
        f"(check: {first}.grad_fn is not None between steps)",
        "this step's forward built on them, so its backward reached the earlier step's graph, whose "
        "saved values that step's backward already freed",
    ]
    attr = carried[0][0].rpartition(".")[2].split("[")[0]
    advice = (
        "State a module keeps between steps (a key/value cache, a hidden state, a cached tensor) must "
        "be cut from the graph: write it under torch.no_grad() or store it detached "
        f"(self.{attr} = value.detach()), or recompute it each step. "
        "retain_graph=True only hides the error while the graph grows with every step."
    )
    return lines, advice


def replaced_after_wrapping(model: nn.Module) -> list[tuple[str, torch.Tensor]]:
    """(name in the model, the old tensor) for each parameter a DistributedDataParallel wrapper was
    built with that its module no longer registers: a parameter replaced after DDP(...)."""
    held = getattr(model, "_module_parameters", None)
    if not isinstance(model, nn.parallel.DistributedDataParallel) or not isinstance(held, list):
        return []
    ignored = getattr(model, "parameters_to_ignore", set())
    current = [(f"module.{n}", p) for n, p in model.module.named_parameters() if n not in ignored]
    registered = {id(p) for _, p in current}
    same_layout = len(current) == len(held)
    found = []
    for i, old in enumerate(held):
        if id(old) in registered:
            continue
        name = current[i][0] if same_layout else f"parameter {i} DistributedDataParallel was built with"
        found.append((name, old))
    return found


def replaced_lines(replaced: list[tuple[str, torch.Tensor]]) -> tuple[list[str], str]:
    """Evidence and advice for parameters replaced after the DistributedDataParallel wrapper was built."""
    names = [name for name, _ in replaced]
    lines = [
        f"{names_text(names)}: the module now registers a new tensor under this name, but "
        "DistributedDataParallel still holds the one it was built with (model._module_parameters): "
        "the parameter was replaced after DistributedDataParallel(...) wrapped the module",
        "DDP registered its gradient hooks (the all-reduce between processes) on the old tensor: the "
        "new one's gradients are never averaged across processes, so the replicas drift apart",
    ]
    advice = (
        "Replace or re-initialise parameters before wrapping the module in DistributedDataParallel (or "
        "change them in place: with torch.no_grad(): layer.weight.copy_(value)), then build DDP and "
        "the optimizer from the final module."
    )
    return lines, advice
