"""An in-place rewrite by nn.Embedding(max_norm=...): its forward renormalises, in place, the rows
it looks up, so a use of its weight recorded before that call finds the weight changed in backward."""

from __future__ import annotations

import re

from torch import nn

__all__ = ["max_norm_lines"]

_VERSION = re.compile(r"modified by an inplace operation: \[[\w.]+ \[([\d, ]*)\]\]")


def max_norm_lines(error: BaseException, model: nn.Module) -> tuple[list[str], str] | None:
    """(evidence, advice) naming the Embedding with max_norm whose weight the error's tensor is."""
    found = _VERSION.search(str(error))
    if found is None:
        return None
    shape = tuple(int(d) for d in found.group(1).split(",") if d.strip())
    modules = [
        (name, m)
        for name, m in model.named_modules()
        if isinstance(m, nn.Embedding)
        and m.max_norm is not None
        and tuple(m.weight.shape) in (shape, shape[::-1])
    ]
    if not modules:
        return None
    lines = [
        f"module {name!r} is {m!r} with max_norm={m.max_norm:g}: its forward renormalises, in place "
        "(torch.embedding_renorm_), each row it looks up whose norm exceeds max_norm, so a use of "
        f"{name}.weight recorded before that call (the weight itself, or an earlier call) finds it "
        "changed in backward"
        for name, m in modules
    ]
    advice = (
        "nn.Embedding(max_norm=...) writes its weight in forward: use the weight only after the last call "
        "of the embedding in the step, or use a copy (emb.weight.clone()), or drop max_norm and "
        "renormalise out of place."
    )
    return lines, advice
