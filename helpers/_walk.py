"""One walk over a model's modules: its registered parameters, and the trainable tensors it holds
in plain attributes (lists, dicts, tuples) without registering them."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from helpers.graph import backward_nodes

__all__ = ["model_tensors", "stray_tensors", "unregistered_tensors"]

# What every nn.Module keeps in its __dict__ (hook tables, registries): never user state.
_MODULE_INTERNALS = frozenset(vars(nn.Module()))
_SCALARS = frozenset({int, float, bool, str, type(None)})
_MAX_DEPTH = 4  # nesting of containers searched below one attribute


def _walk(value: Any, path: str, depth: int, seen: set[int], found: list[tuple[str, torch.Tensor]]) -> None:
    if id(value) in seen or depth > _MAX_DEPTH:
        return
    if isinstance(value, torch.Tensor):
        seen.add(id(value))
        if value.requires_grad and value.is_leaf:  # a stored activation (non-leaf) trains nothing
            found.append((path, value))
    elif isinstance(value, nn.Module):
        seen.add(id(value))
        for name, p in value.named_parameters(remove_duplicate=True):
            if id(p) not in seen:
                seen.add(id(p))
                if p.requires_grad:
                    found.append((f"{path}.{name}", p))
        for name, m in value.named_modules():
            seen.add(id(m))
            _attributes(m, f"{path}.{name}" if name else path, depth + 1, seen, found)
    elif isinstance(value, (list, tuple)):
        seen.add(id(value))
        for i, v in enumerate(value):
            _walk(v, f"{path}[{i}]", depth + 1, seen, found)
    elif isinstance(value, dict):
        seen.add(id(value))
        for k, v in value.items():
            _walk(v, f"{path}[{k!r}]", depth + 1, seen, found)


def _attributes(
    module: nn.Module, prefix: str, depth: int, seen: set[int], found: list[tuple[str, torch.Tensor]]
) -> None:
    state = vars(module)
    # A set difference in C leaves the few attributes a module class adds; most hold plain values
    # (in_features, eps, inplace), decided by their type at once.
    kept = [a for a in state.keys() - _MODULE_INTERNALS if type(state[a]) not in _SCALARS]
    if len(kept) > 1:
        order = list(state)
        kept.sort(key=order.index)  # the order they were set in, not a set's (it varies by run)
    for attr in kept:
        value = state[attr]
        if isinstance(value, (torch.Tensor, nn.Module, list, tuple, dict)) and not attr.startswith("__"):
            _walk(value, f"{prefix}.{attr}" if prefix else attr, depth, seen, found)


def _registered(modules: list[tuple[str, nn.Module]], seen: set[int]) -> list[tuple[str, torch.Tensor]]:
    """model.named_parameters(), read from the modules already listed: the same table torch's own
    named_parameters reads (each module's _parameters), the same names and order, each tensor once
    (tests/test_walk.py compares them). A second walk through named_parameters would cost as much
    again on a model of 1,000 modules."""
    named = []
    for prefix, module in modules:
        for key, p in module._parameters.items():
            if p is not None and id(p) not in seen:
                seen.add(id(p))
                named.append((f"{prefix}.{key}" if prefix else key, p))
    return named


def _unregistered(
    model: nn.Module, modules: list[tuple[str, nn.Module]], seen: set[int]
) -> list[tuple[str, torch.Tensor]]:
    found: list[tuple[str, torch.Tensor]] = []
    for name, module in modules:
        _attributes(module, name, 0, seen, found)
    if found:  # a buffer that requires grad is registered too (rare: checked only when needed)
        buffers = {id(b) for b in model.buffers()}
        found = [(n, t) for n, t in found if id(t) not in buffers]
    return found


def model_tensors(model: nn.Module) -> tuple[list[tuple[str, torch.Tensor]], list[tuple[str, torch.Tensor]]]:
    """(model.named_parameters(), unregistered_tensors(model)) from one walk over the modules."""
    modules = list(model.named_modules())
    seen = {id(m) for _, m in modules}
    named = _registered(modules, seen)
    return named, _unregistered(model, modules, seen)


def unregistered_tensors(model: nn.Module) -> list[tuple[str, torch.Tensor]]:
    """(attribute path, tensor) for every leaf tensor that requires grad, reachable from the model's
    attributes (directly or in plain lists, tuples and dicts), that the model does not register.

    A layer kept in a Python list is never in model.parameters(): not in an optimizer built from
    it, not moved by .to(device), not saved by state_dict(). Paths read like code:
    "blocks[1].weight", "heads['a'].bias", "scale" (a tensor set as a plain attribute).
    """
    modules = list(model.named_modules())
    seen = {id(m) for _, m in modules} | {id(p) for p in model.parameters()}
    return _unregistered(model, modules, seen)


def _leaves(t: torch.Tensor, limit: int = 64) -> list[torch.Tensor]:
    """The leaf tensors (AccumulateGrad variables) a small graph ends in; [] past `limit` nodes."""
    found = []
    for k, node in enumerate(backward_nodes(t.grad_fn)):
        if k == limit:
            return []
        variable = getattr(node, "variable", None)
        if isinstance(variable, torch.Tensor):
            found.append(variable)
    return found


def _copies(modules: list[tuple[str, nn.Module]], registered: set[int]) -> list[tuple[str, torch.Tensor]]:
    """(attribute path, tensor) for every non-leaf tensor that requires grad, held directly as a
    module attribute, whose graph ends only in leaves the model does not register.

    `self.w = nn.Parameter(t).to(device)` keeps such a copy: the Parameter is not registered
    (the attribute holds the copy), so it is neither in model.parameters() nor trained. A stored
    activation (its graph ends in the model's own parameters) is not one.
    """
    found = []
    for prefix, module in modules:
        for attr, value in vars(module).items():
            if not (isinstance(value, torch.Tensor) and value.requires_grad and not value.is_leaf):
                continue
            leaves = _leaves(value)
            if leaves and not any(id(leaf) in registered for leaf in leaves):
                found.append((f"{prefix}.{attr}" if prefix else attr, value))
    return found


def stray_tensors(model: nn.Module) -> tuple[list[tuple[str, torch.Tensor]], list[tuple[str, torch.Tensor]]]:
    """(unregistered_tensors(model), the parameter copies the model holds) from one walk over the
    modules: what diagnose looks for before the first step."""
    modules = list(model.named_modules())
    registered = {id(p) for _, p in _registered(modules, set())}
    seen = {id(m) for _, m in modules} | registered
    return _unregistered(model, modules, seen), _copies(modules, registered)
