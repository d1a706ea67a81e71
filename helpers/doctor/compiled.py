"""torch.compile handling: find the wrapper's original module, run compiled code eagerly so hooks fire."""

from __future__ import annotations

import contextlib
import sys

import torch
from torch import nn

__all__ = ["called_through_compiled", "run_eagerly", "unwrap_compiled"]


def called_through_compiled(model: nn.Module, depth: int = 16) -> bool:
    """Whether the running call of `model` came through a torch.compile wrapper of it.

    Looks up the Python stack (a few frames, from a forward pre-hook) for a caller whose
    `self` is the wrapper (an OptimizedModule, whose `_orig_mod` is the model).
    """
    frame = sys._getframe(1)
    for _ in range(depth):
        frame = frame.f_back
        if frame is None:
            return False
        owner = frame.f_locals.get("self")
        if owner is not model and getattr(owner, "_orig_mod", None) is model:
            return True
    return False


def unwrap_compiled(model: nn.Module) -> tuple[nn.Module, bool]:
    """The original module of a torch.compile wrapper (and True), or the module itself (and False)."""
    original = getattr(model, "_orig_mod", None)
    return (original, True) if isinstance(original, nn.Module) else (model, False)


def run_eagerly() -> contextlib.AbstractContextManager:
    """torch.compiler.set_stance("force_eager"): compiled code runs as plain Python, hooks fire.

    Documented torch API; a no-op (nothing imported) when torch.compile was never used.
    """
    if "torch._dynamo.eval_frame" not in sys.modules or not hasattr(torch.compiler, "set_stance"):
        return contextlib.nullcontext()
    return torch.compiler.set_stance("force_eager")
