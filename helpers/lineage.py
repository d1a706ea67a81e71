"""`lineage`: what a tensor was computed from, as values: the operations and the leaves' values.

A tensor that holds NaN or Inf looks the same on every run (an infinite loss is `inf` whatever the
weights), so `debug_tensor` and `assert_finite` keep, beside it, the backward functions that made it and
the value norms of the leaves it came from. Those tell a run's own non-finite tensor from a typed one,
or from one of another run: the course's grader compares them with its own run.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from helpers._stats import exact_norm
from helpers.graph import backward_nodes

__all__ = ["Lineage", "lineage"]

LIMIT = 4096  # backward nodes walked at most: a lineage is kept only for a tensor that holds NaN or Inf


@dataclass(frozen=True)
class Lineage:
    """The backward functions that made a tensor (names, sorted) and its leaves' value norms (sorted)."""

    ops: tuple[str, ...]
    leaves: tuple[float, ...]

    def __repr__(self) -> str:
        return f"Lineage({len(self.ops)} ops, {len(self.leaves)} leaves)"

    def as_data(self) -> dict:
        """Plain data (JSON-able), as a grader's record keeps it."""
        return {"ops": list(self.ops), "leaves": [float(v) for v in self.leaves]}


@torch.no_grad()
def lineage(tensor: torch.Tensor) -> Lineage:
    """The operations and leaves a tensor was computed from (empty for a tensor with no graph)."""
    ops, leaves = [], []
    for k, node in enumerate(backward_nodes(tensor.grad_fn)):
        if k >= LIMIT:
            break
        variable = getattr(node, "variable", None)
        if variable is not None:
            leaves.append(float(exact_norm(variable.detach())))
        else:
            ops.append(type(node).__name__)
    if tensor.grad_fn is None and tensor.requires_grad:  # a leaf itself
        leaves.append(float(exact_norm(tensor.detach())))
    return Lineage(tuple(sorted(ops)), tuple(sorted(leaves)))
