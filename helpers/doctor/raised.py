"""Where an error train_step raised came from: the forward, the backward or an optimizer step,
and the module, autograd Function or optimizer that raised it.

Read from the error's traceback (the Python frames it passed through) and, for errors the C++
autograd engine raises, from the autograd node its message names ("function SignBackward
returned an incorrect number of gradients"). Nothing is re-run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import FrameType
from typing import Any

import torch
from torch import nn

__all__ = ["RaisedAt", "full_backward_hooked", "locate_error"]

_NODE = re.compile(r"\b(?:[Ff]unction |of )(\w+Backward\d*)\b|\b([A-Z]\w*Backward\d*)\b")
_BACKWARD_FILES = ("torch/autograd/", "torch/_tensor.py")


@dataclass(frozen=True)
class RaisedAt:
    """The phase an error was raised in, what raised it, and what to look at."""

    phase: str  # "forward", "backward", "optimizer step" or "train_step" (code between them)
    where: str  # e.g. "the forward of module 'net.1' (ReLU(inplace=True))"
    node: str | None = None  # the autograd node the error names or ran in, e.g. "SignBackward"
    function: str | None = None  # the custom autograd.Function behind that node, e.g. "Sign"
    module: str | None = None  # the model's module whose forward raised, by qualified name

    def __repr__(self) -> str:
        return f"RaisedAt({self.phase}: {self.where})"


def _frames(exc: BaseException) -> list[FrameType]:
    """The frames the error passed through, outermost (train_step) first."""
    frames, tb = [], exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    return frames


def _file(frame: FrameType) -> str:
    return frame.f_code.co_filename.replace("\\", "/")


def _owner(frame: FrameType) -> Any:
    return frame.f_locals.get("self")


def _custom_function(frames: list[FrameType]) -> tuple[str, str] | None:
    """(node name, Function name) of the innermost custom autograd.Function backward on the stack."""
    for frame in reversed(frames):
        ctx = frame.f_locals.get("ctx", _owner(frame))
        forward_cls = getattr(ctx, "_forward_cls", None)
        if forward_cls is not None:
            return type(ctx).__name__, forward_cls.__name__
    return None


def _module(frames: list[FrameType], names: dict[int, str]) -> tuple[str | None, nn.Module | None]:
    """The innermost module on the stack: (its name in the model, or None outside it; the module)."""
    for frame in reversed(frames):
        owner = _owner(frame)
        if isinstance(owner, nn.Module):
            return names.get(id(owner)), owner
    return None, None


def _node_in_message(exc: BaseException) -> str | None:
    found = _NODE.search(str(exc))
    return (found.group(1) or found.group(2)) if found else None


def _module_text(name: str | None, module: nn.Module) -> str:
    label = f"{type(module).__name__}({module.extra_repr()})"
    return f"module {name!r} ({label})" if name else f"a module outside the model ({label})"


def locate_error(exc: BaseException, model: nn.Module) -> RaisedAt:
    """Where exc was raised: its phase and what raised it, read from its traceback and message."""
    frames = _frames(exc)
    names = {id(m): n for n, m in model.named_modules()}
    for frame in frames:  # an optimizer step on the way: the error is the step's
        owner = _owner(frame)
        if isinstance(owner, torch.optim.Optimizer) and frame.f_code.co_name == "step":
            return RaisedAt("optimizer step", f"{type(owner).__name__}.step()")
    in_backward = any(_file(f).split("site-packages/")[-1].startswith(_BACKWARD_FILES) for f in frames)
    in_backward = in_backward and any(f.f_code.co_name in ("backward", "grad") for f in frames)
    if in_backward:
        custom = _custom_function(frames)
        if custom is not None:
            node, function = custom
            return RaisedAt(
                "backward", f"the backward of custom Function {function} ({node})", node, function
            )
        node = _node_in_message(exc)
        if node is not None:
            function = node[: -len("Backward")] if node.endswith("Backward") else None
            kind = f"custom Function {function} ({node})" if function else f"autograd node {node}"
            return RaisedAt("backward", f"the backward of {kind}", node, function)
        return RaisedAt("backward", "loss.backward() (the autograd engine)")
    name, module = _module(frames, names)
    if module is not None:
        return RaisedAt("forward", f"the forward of {_module_text(name, module)}", module=name)
    return RaisedAt("train_step", "train_step's own code, outside the model, backward and optimizer.step()")


def full_backward_hooked(model: nn.Module) -> list[str]:
    """Names of the model's modules that carry a full backward hook (register_full_backward_hook)."""
    hooked = []
    for name, m in model.named_modules():
        if getattr(m, "_is_full_backward_hook", None) and (m._backward_hooks or m._backward_pre_hooks):
            hooked.append(name or "the model")
    return hooked
