"""`check_gradient`: autograd's gradient against central finite differences, in float64."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from helpers._validate import require_tensor

__all__ = ["GradientCheck", "check_gradient"]


@dataclass(frozen=True)
class GradientCheck:
    """Both gradients, their largest absolute difference, and whether they agree."""

    autograd: torch.Tensor
    numerical: torch.Tensor
    max_abs_error: float
    ok: bool

    def __repr__(self) -> str:
        verdict = "agree" if self.ok else "DISAGREE"
        return (
            f"GradientCheck({verdict}: max_abs_error={self.max_abs_error:.3e})\n"
            f"  autograd:  {self.autograd.flatten().tolist()}\n"
            f"  numerical: {self.numerical.flatten().tolist()}"
        )


def check_gradient(
    fn: Callable[[torch.Tensor], torch.Tensor],
    x: torch.Tensor,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-4,
) -> GradientCheck:
    """Compare d fn(x)/dx from autograd with (fn(x+eps) - fn(x-eps)) / 2eps, element by element."""
    require_tensor("x", x)
    if not callable(fn):
        raise TypeError(f"expected fn to be a callable returning a scalar tensor, got {type(fn).__name__}")
    if not eps > 0:
        raise ValueError(f"expected eps > 0, got {eps}")
    x64 = x.detach().to(torch.float64).clone().requires_grad_(True)
    y = fn(x64)
    if not isinstance(y, torch.Tensor) or y.numel() != 1:
        shape = tuple(y.shape) if isinstance(y, torch.Tensor) else type(y).__name__
        raise ValueError(f"expected fn to return a scalar tensor (one element), got {shape}")
    if not y.requires_grad:
        raise ValueError("fn(x) does not depend on x through autograd (its result has no grad_fn)")
    (analytic,) = torch.autograd.grad(y.sum(), x64, allow_unused=True)
    if analytic is None:
        analytic = torch.zeros_like(x64)
    numerical = torch.zeros_like(x64)
    with torch.no_grad():
        flat_x, flat_n = x64.detach().clone().view(-1), numerical.view(-1)
        for i in range(flat_x.numel()):
            old = flat_x[i].item()
            flat_x[i] = old + eps
            plus = fn(flat_x.view_as(x64)).sum()
            flat_x[i] = old - eps
            minus = fn(flat_x.view_as(x64)).sum()
            flat_x[i] = old
            flat_n[i] = (plus - minus) / (2 * eps)
    error = (analytic - numerical).abs()
    max_error = float(error.max()) if error.numel() else 0.0
    ok = bool(torch.allclose(analytic, numerical, atol=atol, rtol=rtol))
    return GradientCheck(analytic.detach(), numerical, max_error, ok)
