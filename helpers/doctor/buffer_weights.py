"""State that should train but cannot: a buffer (register_buffer) used as the weight or bias of a
linear, convolution or embedding whose own module trains other parameters (a bias that trains beside
a weight that cannot). Buffers never require grad and no optimizer holds them. A module that trains
nothing of its own (a fixed blur kernel, a frozen or quantised layer) is a fixed operator and is left
alone. Recorded during the step by replacing those functions of torch.nn.functional (nn.Linear,
nn.Conv2d and nn.Embedding call them there), put back when it ends."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from helpers.doctor.findings import names_text
from helpers.doctor.intended import how_to_mark, is_intended

__all__ = ["WeightUses", "buffer_lines"]

_WEIGHTED = ("linear", "conv1d", "conv2d", "conv3d", "embedding")


@dataclass
class WeightUses:
    """ids of the tensors used as a weight or bias, with the function that used them."""

    used: dict[int, str] = field(default_factory=dict)
    _saved: list[tuple[str, Any]] = field(default_factory=list)

    def _wrap(self, name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            if torch.is_grad_enabled():
                weight = kwargs.get("weight", args[1] if len(args) > 1 else None)
                bias = kwargs.get("bias", args[2] if len(args) > 2 and name != "embedding" else None)
                for t in (weight, bias):
                    if isinstance(t, torch.Tensor) and not t.requires_grad:
                        self.used.setdefault(id(t), f"F.{name}")
            return original(*args, **kwargs)

        return call

    def __enter__(self) -> WeightUses:
        for name in _WEIGHTED:
            original = getattr(F, name)
            self._saved.append((name, original))
            setattr(F, name, self._wrap(name, original))
        return self

    def __exit__(self, *exc: object) -> None:
        for name, original in reversed(self._saved):
            setattr(F, name, original)
        self._saved.clear()

    def __repr__(self) -> str:
        return f"WeightUses({len(self.used)} tensors without grad used as weights)"


def _weight_like(name: str) -> bool:
    """A buffer named as a weight or bias (a constant named otherwise, fixed features, is left alone)."""
    last = name.rpartition(".")[2]
    return "weight" in last or last == "bias"


def _weight_buffers(model: nn.Module, used: dict[int, str]) -> list[tuple[str, str, list[str]]]:
    """(buffer name, the function that used it, what its module trains) for buffers named like weights
    that a layer function used as one, in modules that train parameters of their own."""
    found = []
    for prefix, module in model.named_modules():
        trained = [n for n, p in module.named_parameters(recurse=False) if p.requires_grad]
        for name, b in module.named_buffers(recurse=False):
            if trained and id(b) in used and _weight_like(name):
                found.append((f"{prefix}.{name}" if prefix else name, used[id(b)], trained))
    return found


def buffer_lines(
    model: nn.Module, used: dict[int, str], intended: Iterable[str]
) -> tuple[list[str], list[str], str] | None:
    """(evidence, names, advice) for buffers named like weights that a layer function used as one, beside
    parameters of the same module that train."""
    found = [f for f in _weight_buffers(model, used) if not is_intended(f[0], intended)]
    if not found:
        return None
    used_by = names_text(
        f"{n} (used by {fn}) beside its module's trained {', '.join(t)}" for n, fn, t in found
    )
    lines = [
        f"the model's buffers {used_by} are used as weights: a buffer (register_buffer) never requires grad, "
        "is not in model.parameters() nor in an optimizer, so these weights never train while the rest of "
        "their layer does"
    ]
    names = [n for n, _, _ in found]
    advice = (
        "Register weights that should train as nn.Parameter (self.weight = nn.Parameter(tensor)), not with "
        f"register_buffer; {how_to_mark(names)} (a fixed projection kept constant on purpose)."
    )
    return lines, names, advice
