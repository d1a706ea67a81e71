"""Count device-to-host reads: the calls that would stall a GPU, counted on any device."""

from __future__ import annotations

from collections import Counter
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

__all__ = ["HostSyncCounter", "count_host_syncs"]

_T = torch.Tensor
# Calls that always copy a value to the host (or format it there).
_ALWAYS = {
    _T.item: "item",
    _T.__bool__: "bool",
    _T.__float__: "float",
    _T.__int__: "int",
    _T.__index__: "index",
    _T.__complex__: "complex",
    _T.tolist: "tolist",
    _T.cpu: "cpu",
    _T.numpy: "numpy",
    _T.__array__: "numpy",
    _T.__repr__: "repr",
    _T.__format__: "format",
    _T.nonzero: "nonzero",
    _T.argwhere: "nonzero",
    _T.masked_select: "masked_select",
    torch.equal: "equal",
    torch.nonzero: "nonzero",
    torch.argwhere: "nonzero",
    torch.masked_select: "masked_select",
    torch.Tensor.__getitem__: "bool-mask index",  # counted only when a bool tensor indexes
}


def _is_bool_mask(index: Any) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return any(isinstance(i, torch.Tensor) and i.dtype == torch.bool for i in items)


def _targets_host(args: tuple, kwargs: dict) -> bool:
    """`.to()` that copies to the host: from another device, or spelled `.to("cpu")` in user code.

    A `.to(device_object)` from a CPU tensor to the CPU is what library code does to gather
    results on the tensors' own device; on a GPU that device would not be the host.
    """
    source = args[0] if args and isinstance(args[0], torch.Tensor) else None
    for value in (*args[1:], kwargs.get("device")):
        if isinstance(value, str) and torch.device(value).type == "cpu":
            return True
        if isinstance(value, torch.device) and value.type == "cpu":
            return source is not None and source.device.type != "cpu"
    return False


class HostSyncCounter(TorchFunctionMode):
    """A torch function mode that counts host reads; `.count` and `.by_kind` hold the tally."""

    def __init__(self) -> None:
        super().__init__()
        self.by_kind: Counter[str] = Counter()

    @property
    def count(self) -> int:
        """Total host reads seen so far."""
        return sum(self.by_kind.values())

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        kind = _ALWAYS.get(func)
        if func is _T.__getitem__:
            kind = kind if len(args) > 1 and _is_bool_mask(args[1]) else None
        elif func is _T.to and _targets_host(args, kwargs):
            kind = "cpu"
        if kind is not None:
            self.by_kind[kind] += 1
        return func(*args, **kwargs)

    def __repr__(self) -> str:
        kinds = ", ".join(f"{k}={v}" for k, v in sorted(self.by_kind.items()))
        return f"HostSyncCounter(count={self.count}{', ' + kinds if kinds else ''})"


def count_host_syncs() -> HostSyncCounter:
    """Context manager: `with count_host_syncs() as c: ...` then read `c.count`."""
    return HostSyncCounter()
