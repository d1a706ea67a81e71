"""State that should train but cannot: a buffer (register_buffer) used as the weight or bias of a
linear, convolution or embedding, or named as a distribution's parameter (a mean `mu`, a `sigma`, a
`logvar`, a `log_std`) and used in the step, in a module that trains other parameters of its own (a
bias that trains beside a weight that cannot; slots drawn as mu + exp(log_sigma) * noise). Buffers
never require grad and no optimizer holds them. A module that trains nothing of its own (a fixed blur
kernel, a frozen or quantised layer) is a fixed operator, and a prior (`prior_mu`), a running or EMA
statistic or a target is fixed by design: each is left alone. Layer functions are recorded by
replacing those of torch.nn.functional (nn.Linear, nn.Conv2d and nn.Embedding call them there); a
buffer named as a distribution's parameter, where a model has one, by a TorchFunctionMode that sees
every operation it enters; both are put back when the step ends."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F
from torch.overrides import TorchFunctionMode

from helpers.doctor.findings import names_text
from helpers.doctor.intended import how_to_mark, is_intended

__all__ = ["WeightUses", "buffer_lines"]

_WEIGHTED = ("linear", "conv1d", "conv2d", "conv3d", "embedding")


_DISTRIBUTION = ("mu", "sigma", "logvar", "logstd", "log_std", "log_sigma", "log_var")
_FIXED_BY_DESIGN = ("prior", "running", "ema", "target")


def _tokens(name: str) -> list[str]:
    return name.rpartition(".")[2].lower().split("_")


def _distribution_like(name: str) -> bool:
    """A buffer named as a distribution's parameter (slots_mu, log_std), not a prior or a statistic."""
    tokens = _tokens(name)
    pairs = {"_".join(tokens[i : i + 2]) for i in range(len(tokens) - 1)}
    return bool((set(tokens) | pairs) & set(_DISTRIBUTION)) and not set(tokens) & set(_FIXED_BY_DESIGN)


class _SeenIn(TorchFunctionMode):
    """Records which of the watched tensors an operation received while grad mode was on."""

    def __init__(self, watched: set[int], used: dict[int, str]) -> None:
        super().__init__()
        self.watched, self.used = watched, used

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if torch.is_grad_enabled() and getattr(func, "__name__", "") != "__get__":  # reads are not uses
            for t in (*args, *(kwargs or {}).values()):
                if isinstance(t, torch.Tensor) and id(t) in self.watched:
                    self.used.setdefault(id(t), getattr(func, "__name__", "an operation").strip("_"))
        return func(*args, **(kwargs or {}))


@dataclass
class WeightUses:
    """ids of the tensors used as a weight or bias, with the function that used them (and, where the
    model has buffers named as a distribution's parameters, the operation that first used each)."""

    used: dict[int, str] = field(default_factory=dict)
    _saved: list[tuple[str, Any]] = field(default_factory=list)
    _watched: set[int] = field(default_factory=set)
    _mode: TorchFunctionMode | None = None

    def watch(self, model: nn.Module) -> WeightUses:
        """Also record where the model's buffers named as a distribution's parameters are used."""
        self._watched = set()
        for _, module in model.named_modules():
            found = [
                id(b)
                for name, b in module.named_buffers(recurse=False)
                if _distribution_like(name) and b.is_floating_point()
            ]  # most modules have none: their parameters are then never walked
            if found and any(p.requires_grad for p in module.parameters()):
                self._watched.update(found)
        return self

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
        if self._watched:  # only where such buffers exist: no mode, no cost, in every other model
            self._mode = _SeenIn(self._watched, self.used)
            self._mode.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._mode is not None:
            self._mode.__exit__(None, None, None)
            self._mode = None
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
    that a layer function used as one in a module that trains parameters of its own, or named as a
    distribution's parameter and used in the step by a module whose layers train."""
    found = []
    for prefix, module in model.named_modules():
        for name, b in module.named_buffers(recurse=False):
            if id(b) not in used or not (_weight_like(name) or _distribution_like(name)):
                continue
            below = not _weight_like(name)  # a distribution's parameters: what the module's layers train
            trained = [n for n, p in module.named_parameters(recurse=below) if p.requires_grad]
            if trained:
                found.append((f"{prefix}.{name}" if prefix else name, used[id(b)], trained))
    return found


def _few(names: list[str]) -> str:
    return ", ".join(names) if len(names) <= 3 else f"{', '.join(names[:3])} and {len(names) - 3} more"


def buffer_lines(
    model: nn.Module, used: dict[int, str], intended: Iterable[str]
) -> tuple[list[str], list[str], str] | None:
    """(evidence, names, advice) for buffers named like weights that a layer function used as one, beside
    parameters of the same module that train."""
    found = [f for f in _weight_buffers(model, used) if not is_intended(f[0], intended)]
    if not found:
        return None
    used_by = names_text(f"{n} (used by {fn}) beside its module's trained {_few(t)}" for n, fn, t in found)
    lines = [
        f"the model's buffers {used_by} are used as weights: a buffer (register_buffer) never requires grad, "
        "is not in model.parameters() nor in an optimizer, so these weights never train while the rest of "
        "their module does"
    ]
    names = [n for n, _, _ in found]
    advice = (
        "Register weights that should train as nn.Parameter (self.weight = nn.Parameter(tensor)), not with "
        f"register_buffer; {how_to_mark(names)} (a fixed projection or a fixed prior kept constant on "
        "purpose)."
    )
    return lines, names, advice
