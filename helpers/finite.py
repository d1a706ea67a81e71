"""`assert_finite`: stop at the first tensor that holds NaN or Inf, and say what is in it."""

from __future__ import annotations

import torch

from helpers._stats import abs_max, count_nonfinite, dense_values
from helpers._validate import require_tensor

__all__ = ["NonFiniteError", "assert_finite"]


class NonFiniteError(RuntimeError):
    """A tensor held NaN or Inf; `.name`, `.nan` and `.inf` say which and how many."""

    def __init__(self, name: str, nan: int, inf: int, sample: list[float], numel: int) -> None:
        self.name, self.nan, self.inf, self.sample = name, nan, inf, sample
        shown = ", ".join(str(v) for v in sample)
        super().__init__(
            f"{name} contains non-finite values: nan={nan} inf={inf} of {numel} elements; sample=[{shown}]"
        )


def assert_finite(name: str, tensor: torch.Tensor, *, sample_size: int = 5) -> torch.Tensor:
    """Raise NonFiniteError if tensor holds NaN or Inf (one host read when it is finite)."""
    require_tensor(name, tensor)
    if not (tensor.is_floating_point() or tensor.is_complex()):
        return tensor
    t = dense_values(tensor)
    if bool(abs_max(t).isfinite()):
        return tensor
    nan, inf = (int(v) for v in count_nonfinite(t).tolist())
    sample = t[~torch.isfinite(t)].flatten()[:sample_size].tolist()
    raise NonFiniteError(name, nan, inf, sample, t.numel())
