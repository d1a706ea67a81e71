"""Terms of the loss that carry no gradient: a constant (computed without a graph: argmax, a
comparison, numbers rebuilt into a new tensor, .detach()) added to the live terms. When every parameter
still gets a gradient from the other terms nothing else shows that this term changes nothing; when the
cut term was the only path of some parameters (another module's output, detached), they are named."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import torch

from helpers._stats import host_floats
from helpers.doctor.findings import names_text
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


def _others(without_grad: Sequence[str]) -> str:
    """What the other terms of the loss reach, as the step's gradients show it."""
    if not without_grad:
        return "the other terms give every parameter a gradient, so no other check sees it"
    return (
        f"the parameters {names_text(without_grad)} got no gradient in this step: the other terms do not "
        "reach them (the cut term may have been their only path to the loss)"
    )


def dead_term_lines(
    loss: Any, constants: Sequence[ConstantTerm], without_grad: Sequence[str] = ()
) -> tuple[list[str], list[str], str, str] | None:
    """(evidence, names, advice, summary) for non-zero constants the loss adds to its live terms; None
    if none. `without_grad`: the trainable parameters that got no gradient in the step."""
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
    lines.append(_others(without_grad))
    advice = (
        "Compute the term from the model's outputs with differentiable operations (probabilities from "
        "softmax instead of argmax, no new tensors from numbers); check it: the term's grad_fn is not None."
    )
    summary = "the loss adds a term that carries no gradient (a constant beside its live terms)"
    return lines, [c.where for c, _ in dead], advice, summary
