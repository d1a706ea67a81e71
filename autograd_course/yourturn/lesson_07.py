"""Your-turn activities of lesson 07 · NaN and Inf."""

from __future__ import annotations

import math
from typing import Any

from autograd_course.yourturn.answers import number_of
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _same_float(a: float, b: float) -> bool:
    """Equal, with NaN equal to NaN and infinities compared by sign."""
    if math.isnan(b):
        return math.isnan(a)
    if math.isinf(b):
        return a == b
    return not math.isnan(a) and abs(a - b) < 1e-6


def _check_predicted_sqrt_grad(predicted_sqrt_grad: Any) -> tuple:
    values = predicted_sqrt_grad.tolist() if hasattr(predicted_sqrt_grad, "tolist") else predicted_sqrt_grad
    if not isinstance(values, (list, tuple)) or len(values) != 2:
        return incorrect(f"expected a list of two floats such as [1.0, 2.0], got {predicted_sqrt_grad!r}")
    if any(number_of(v) is None for v in values):
        return incorrect(f"expected two numbers (float('inf') and float('nan') count), got {values!r}")
    first, second = (float(v) for v in values)
    if not _same_float(second, 0.25):
        return incorrect(
            f"the second element {second} is off: d sqrt(x)/dx = 1 / (2 sqrt(x)), at x = 4 that is 0.25"
        )
    if math.isnan(first):
        return incorrect(
            "you predicted NaN at x = 0; 1 / (2 sqrt(0)) = 1/0 is inf, not NaN (nothing multiplies it by 0)"
        )
    if not _same_float(first, math.inf):
        return incorrect(f"you predicted {first} at x = 0; the derivative 1 / (2 sqrt(x)) is 1/0 there")
    return correct(
        "[inf, 0.25]: sqrt(0) = 0 is a fine value, its derivative is infinite. Forward checks cannot see it."
    )


def _check_masked_log(masked_log: Any) -> tuple:
    import torch

    if not callable(masked_log):
        return incorrect(
            f"expected masked_log to be a function of one tensor, got {type(masked_log).__name__}"
        )
    v = torch.tensor([-4.0, 0.0, 0.25, 9.0], requires_grad=True)  # 0.25: log is negative, not zero
    out = masked_log(v)
    if not isinstance(out, torch.Tensor) or out.shape != v.shape:
        return incorrect(f"masked_log should keep the input's shape, got {type(out).__name__} {out!r}")
    expected = torch.tensor([0.0, 0.0, math.log(0.25), math.log(9.0)])
    if not torch.allclose(out.detach(), expected):
        return incorrect(
            f"the values changed: masked_log({v.tolist()}) gave {out.detach().tolist()}, expected"
            f" {[round(e, 4) for e in expected.tolist()]} (log of every positive input, 0 elsewhere)"
        )
    if not out.requires_grad:
        return incorrect("the result does not require grad: keep v in the graph (no detach, no no_grad)")
    (grad,) = torch.autograd.grad(out.sum(), v)
    if not all(math.isfinite(g) for g in grad.tolist()):
        return incorrect(
            f"the gradient is {grad.tolist()}: log still sees v <= 0; replace those inputs before the log,"
            " not only after"
        )
    if not torch.allclose(grad, torch.tensor([0.0, 0.0, 4.0, 1 / 9])):
        return incorrect(
            f"the gradient is {grad.tolist()}, expected [0, 0, 4, 1/9]: 1/v where v > 0, 0 where masked out"
        )
    return correct("same values, gradient 1/v where v > 0 and 0 elsewhere: the log only sees valid inputs.")


ACTIVITIES = (
    Activity(
        id="07.1",
        task="Predict x.grad after torch.sqrt(x).sum().backward() at x = [0.0, 4.0].",
        names=("predicted_sqrt_grad",),
        check=_check_predicted_sqrt_grad,
        hints=(
            "d sqrt(x)/dx = 1 / (2 sqrt(x)). Evaluate it at 0 and at 4.",
            "1 / 0 in floating point is inf; NaN needs something like 0 * inf or 0 / 0.",
        ),
        solution='predicted_sqrt_grad = [float("inf"), 0.25]',
    ),
    Activity(
        id="07.2",
        task="Rewrite masked_log so log never sees v <= 0: same values, finite gradient.",
        names=("masked_log",),
        check=_check_masked_log,
        hints=(
            "The where after the log only picks values; log(v) is still computed and differentiated.",
            "Use where twice: first replace the inputs (1 is harmless for log), then mask the output.",
        ),
        solution=(
            "def masked_log(v: torch.Tensor) -> torch.Tensor:\n"
            "    safe = torch.where(v > 0, v, torch.ones_like(v))\n"
            "    return torch.where(v > 0, torch.log(safe), 0.0)"
        ),
    ),
)
