"""One module registered under several names (nn.ModuleList([layer] * n)): every name is the same
object, so the levels share one set of weights and parameters() lists them once."""

from __future__ import annotations

from collections.abc import Iterable

from torch import nn

from helpers.doctor.findings import names_text
from helpers.doctor.intended import how_to_mark, is_intended

__all__ = ["shared_lines"]


def shared_lines(model: nn.Module, intended: Iterable[str]) -> tuple[list[str], list[str], str] | None:
    """(evidence, names, advice) for modules with parameters that the model holds under several names."""
    names: dict[int, list[str]] = {}
    for name, module in model.named_modules(remove_duplicate=False):
        if next(module.parameters(recurse=False), None) is not None:
            names.setdefault(id(module), []).append(name)
    groups = [g for g in names.values() if len(g) > 1 and not any(is_intended(n, intended) for n in g)]
    if not groups:
        return None
    lines = [
        f"{names_text(g)} are the same module (one {type(model.get_submodule(g[0])).__name__} object "
        f"under {len(g)} names): they share one set of weights, and parameters() lists them once"
        for g in groups
    ]
    flat = [n for g in groups for n in g]
    advice = (
        "[layer] * n repeats one object n times: build n layers, nn.ModuleList([make_layer() for _ in "
        f"range(n)]) (or copy.deepcopy each); {how_to_mark(g[0] for g in groups)} (weights shared on "
        "purpose)."
    )
    return lines, flat, advice
