"""Leaves of the loss's graph that require grad and that no optimizer of the step holds, wherever
they live: a classifier held by the loss module, a head beside the model. They receive gradients
and are never updated."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from helpers.doctor.findings import names_text
from helpers.graph import backward_nodes

__all__ = ["outside_lines"]


def outside_lines(
    loss: Any, model: nn.Module, held: set[int], outside: dict[int, str], limit: int = 200_000
) -> tuple[list[str], list[str], str] | None:
    """(evidence, names, advice) for leaves outside the model that no optimizer holds; None if none."""
    if not isinstance(loss, torch.Tensor) or loss.grad_fn is None:
        return None
    mine = {id(p) for p in model.parameters()}
    found: dict[str, int] = {}
    for count, node in enumerate(backward_nodes(loss.grad_fn)):
        if count >= limit:
            break
        v = getattr(node, "variable", None)
        if not isinstance(v, torch.Tensor) or not v.requires_grad or id(v) in held or id(v) in mine:
            continue
        label = outside.get(id(v), f"a tensor of shape {list(v.shape)}")
        found[label] = found.get(label, 0) + v.numel()
    if not found:
        return None
    lines = [
        f"the loss reaches leaves outside the model that require grad, and no optimizer holds them: "
        f"{names_text(f'{label} ({n} elements)' for label, n in found.items())}: backward gives them "
        "gradients, optimizer.step() never updates them",
        "diagnose searched the loss's whole graph, not only the model passed to it",
    ]
    advice = (
        "Give the optimizer these parameters too (optimizer.add_param_group({'params': "
        "loss_module.parameters()}), or build it from both modules' parameters); if they are meant to "
        "stay fixed (a frozen teacher), call requires_grad_(False) on them or run them under torch.no_grad()."
    )
    return lines, list(found), advice
