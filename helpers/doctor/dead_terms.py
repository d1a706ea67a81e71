"""Terms of the loss that carry no gradient: a constant (computed without a graph: argmax, a
comparison, numbers rebuilt into a new tensor, .detach()) added to the live terms. Every parameter
still gets a gradient from the other terms, so nothing else shows that this term changes nothing."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import torch

from helpers._stats import host_floats
from helpers.doctor.loss_calls import ConstantTerm

__all__ = ["dead_term_lines"]

# nodes through which a term still adds into the loss: sums, scalings, casts and reshapes
_ADDITIVE = re.compile(r"(Add|Sub|Mul|Div|Neg|Sum|Mean|ToCopy|View|Reshape|Squeeze|Unsqueeze|Clone)Backward")


def _additive_top(loss: torch.Tensor, limit: int = 2000) -> set[int]:
    """ids of the nodes from the loss's grad_fn down through sums and scalings only."""
    seen: set[int] = set()
    stack: list[Any] = [loss.grad_fn]
    while stack and len(seen) < limit:
        node = stack.pop()
        if node is None or id(node) in seen or not _ADDITIVE.match(type(node).__name__):
            continue
        seen.add(id(node))
        stack.extend(n for n, _ in node.next_functions)
    return seen


def dead_term_lines(loss: Any, constants: Sequence[ConstantTerm]) -> tuple[list[str], list[str], str] | None:
    """(evidence, names, advice) for non-zero constants the loss adds to its live terms; None if none."""
    if not constants or not isinstance(loss, torch.Tensor) or loss.grad_fn is None:
        return None
    top = _additive_top(loss)
    terms = [c for c in constants if id(c.node) in top]
    values = host_floats([c.value.detach().reshape(()).double() for c in terms])
    dead = [(c, v) for c, v in zip(terms, values) if v != 0.0]  # a sum started from 0 is no term
    if not dead:
        return None
    lines = [
        f"the loss adds a term that carries no gradient: a tensor of value {v:.4g} without grad_fn "
        f"(requires_grad=False), added at {c.where}; it was computed without a graph (argmax, a "
        "comparison, numbers rebuilt into a new tensor with .tolist(), .item() or torch.tensor(...), or "
        ".detach()), so it changes the loss's value and no parameter's gradient"
        for c, v in dead
    ]
    lines.append("the other terms give every parameter a gradient, so no other check sees it")
    advice = (
        "Compute the term from the model's outputs with differentiable operations (probabilities from "
        "softmax instead of argmax, no new tensors from numbers); check it: the term's grad_fn is not None."
    )
    return lines, [c.where for c, _ in dead], advice
