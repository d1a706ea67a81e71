"""Part 2's hidden-run file, read back strictly into the form the judge reads.

fixrun.run_fix writes each training of its record (`fix`, the learner's; `given`, the given code's)
in the form fixrun.packed makes: per parameter name one tensor stacking the FIX_STEPS + 1 snapshots
and one stacking the FIX_STEPS gradients, a boolean mask of the steps that left a gradient, the
losses and lrs as float64 tensors. Loading a few tensors instead of about a thousand small ones is
what makes reading a record cheap (torch.load unpickles each tensor in Python).

The file was written where the learner's code ran, so nothing in it is believed: `unpacked` checks
every key, type, dtype, device, layout, shape and length before it builds collect_fix_trace's form,
and a training that is not exactly what packed writes becomes {"incomplete": why}, which the judge
reads as "the fix trace is incomplete" (fixcheck.judge_trace): never an exception, never a pass.
"""

from __future__ import annotations

import io
from typing import Any

import torch

from autograd_course.fixing.fixrun import FIX_STEPS

__all__ = ["MAX_NAMES", "MAX_VALUES", "read_fix_record", "unpacked"]

MAX_NAMES = 64  # parameters a training may record (TinyNet has four)
MAX_VALUES = 1 << 24  # values one training's tensors may hold together (64 MiB of float32)
NOTES = ("patched", "swallowed")  # what the harness noted beside a training: lists of sentences
TRAINED = frozenset({"seed", "names", "params", "grads", "has_grad", "losses", "lrs", *NOTES})


class _Malformed(ValueError):
    """Why a recorded training is not what fixrun.packed writes."""


def read_fix_record(data: bytes) -> dict:
    """A part-2 hidden run's file (its bytes): loaded with weights_only=True, `fix` and `given`
    unpacked; a file that holds no dict reads as {} (its trainings then incomplete)."""
    loaded = torch.load(io.BytesIO(data), weights_only=True)
    record = loaded if isinstance(loaded, dict) else {}
    return record | {key: unpacked(record.get(key)) for key in ("fix", "given")}


def unpacked(trained: Any) -> dict:
    """One recorded training in the form the judge reads, from the form fixrun.packed wrote.

    {"not_attempted": True} and an error ({"error": str}, with the harness's notes) come back as
    they are; a training comes back as {"seed", "names", "params": [{name: tensor}] * (FIX_STEPS + 1),
    "grads": [{name: tensor}] * FIX_STEPS (a name only where its mask says that step left a gradient),
    "losses": [float] * FIX_STEPS, "lrs": [float] * (FIX_STEPS + 1)} and the notes. Anything else
    (a missing or extra key, a wrong type, dtype, shape or length, a tensor too big, strided
    strangely, on another device) is {"incomplete": why}."""
    try:
        return _unpacked(trained)
    except _Malformed as why:
        return {"incomplete": str(why)}
    except Exception as exc:  # a check this module lacks: still incomplete, never the grader's error
        return {"incomplete": f"unreadable ({type(exc).__name__})"}


def _unpacked(trained: Any) -> dict:
    if not isinstance(trained, dict) or not all(type(k) is str for k in trained):
        raise _Malformed(f"a training is a dict of named fields, not {type(trained).__name__}")
    notes = {k: _sentences(trained[k], k) for k in NOTES if k in trained}
    if set(trained) == {"not_attempted"} and trained["not_attempted"] is True:
        return {"not_attempted": True}
    if "error" in trained:
        _keys(trained, {"error", *NOTES}, {"error"})
        if type(trained["error"]) is not str:
            raise _Malformed("error is not a string")
        return {"error": trained["error"]} | notes
    _keys(trained, TRAINED, TRAINED - set(NOTES))
    if type(trained["seed"]) is not int:
        raise _Malformed("seed is not an int")
    names = _names(trained["names"])
    params, grads = _stacks(trained, names)
    losses = _tensor(trained["losses"], "losses", torch.float64, (FIX_STEPS,)).tolist()
    lrs = _tensor(trained["lrs"], "lrs", torch.float64, (FIX_STEPS + 1,)).tolist()
    return {
        "seed": trained["seed"],
        "names": names,
        "params": [{n: params[n][k] for n in names} for k in range(FIX_STEPS + 1)],
        "grads": [{n: grads[n][k] for n in names if grads[n][k] is not None} for k in range(FIX_STEPS)],
        "losses": losses,
        "lrs": lrs,
    } | notes


def _keys(trained: dict, allowed: set | frozenset, required: set | frozenset) -> None:
    if extra := sorted(set(trained) - set(allowed)):
        raise _Malformed(f"unexpected fields {extra[:3]}")
    if missing := sorted(set(required) - set(trained)):
        raise _Malformed(f"missing fields {missing}")


def _sentences(value: Any, key: str) -> list[str]:
    if type(value) is not list or any(type(v) is not str for v in value):
        raise _Malformed(f"{key} is not a list of strings")
    return list(value)


def _names(value: Any) -> list[str]:
    names = _sentences(value, "names")
    if len(names) > MAX_NAMES or len(set(names)) != len(names):
        raise _Malformed(f"names are not at most {MAX_NAMES} different strings")
    return names


def _stacks(trained: dict, names: list[str]) -> tuple[dict, dict]:
    """Per name, its snapshots and its gradients (None at a step without one), each checked."""
    for key in ("params", "grads", "has_grad"):
        if type(trained[key]) is not dict or set(trained[key]) != set(names):
            raise _Malformed(f"{key} does not hold exactly the recorded names")
    params, grads, values = {}, {}, 0
    for n in names:
        stack = _tensor(trained["params"][n], f"params[{n!r}]", None, None)
        step_shape = tuple(stack.shape[1:])
        if stack.dim() < 1 or stack.shape[0] != FIX_STEPS + 1 or not stack.dtype.is_floating_point:
            raise _Malformed(f"params[{n!r}] is not {FIX_STEPS + 1} floating-point snapshots")
        grad = _tensor(trained["grads"][n], f"grads[{n!r}]", stack.dtype, (FIX_STEPS, *step_shape))
        mask = _tensor(trained["has_grad"][n], f"has_grad[{n!r}]", torch.bool, (FIX_STEPS,))
        values += stack.numel() + grad.numel()
        if values > MAX_VALUES:
            raise _Malformed(f"the recorded tensors hold more than {MAX_VALUES} values")
        params[n] = list(stack.unbind(0))
        grads[n] = [g if has else None for g, has in zip(grad.unbind(0), mask.tolist(), strict=True)]
    return params, grads


def _tensor(value: Any, key: str, dtype: torch.dtype | None, shape: tuple | None) -> torch.Tensor:
    """value, when it is a plain, dense, contiguous CPU tensor of at most MAX_VALUES values (and of
    dtype and shape, where given) whose storage holds no more than that many values' bytes."""
    if type(value) is not torch.Tensor:
        raise _Malformed(f"{key} is not a plain tensor")
    if value.layout is not torch.strided or value.device.type != "cpu" or value.is_quantized:
        raise _Malformed(f"{key} is not a dense CPU tensor")
    if value.numel() > MAX_VALUES or value.untyped_storage().nbytes() > MAX_VALUES * 8:
        raise _Malformed(f"{key} holds more than {MAX_VALUES} values")
    if not value.is_contiguous() or value.requires_grad:
        raise _Malformed(f"{key} is not a contiguous tensor of values")
    if dtype is not None and value.dtype != dtype:
        raise _Malformed(f"{key} is {value.dtype}, not {dtype}")
    if shape is not None and tuple(value.shape) != shape:
        raise _Malformed(f"{key} has shape {tuple(value.shape)}, not {shape}")
    return value
