"""Your-turn activities of lesson 07 · NaN and Inf."""

from __future__ import annotations

import math
from typing import Any

from autograd_course.yourturn.answers import number_of
from autograd_course.yourturn.choice import which_ones
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


ROOTS_072 = {  # four ways to write sqrt of the positive part
    "a": lambda torch, v: torch.sqrt(v * (v > 0)),
    "b": lambda torch, v: torch.sqrt(v.abs()) * (v > 0),
    "c": lambda torch, v: torch.sqrt(v.clamp(min=1e-12)),
    "d": lambda torch, v: torch.sqrt(torch.where(v > 0, v, 0.0)),
}


def _finite_roots() -> dict[str, bool]:
    """Whether each way's gradient at [-4, 0, 0.25, 9] is finite everywhere, found by running it."""
    import torch

    finite = {}
    for letter, root in ROOTS_072.items():
        v = torch.tensor([-4.0, 0.0, 0.25, 9.0], requires_grad=True)
        root(torch, v).sum().backward()
        finite[letter] = bool(torch.isfinite(v.grad).all())
    return finite


WHY_072 = {
    "a": "the mask multiplies v before sqrt, so sqrt still sees 0, and its infinite slope times the mask's 0"
    " is NaN",
    "b": "sqrt(|v|) still sees 0 and has an infinite slope there; the mask's 0 after it makes 0 × inf = NaN",
    "c": "clamp feeds sqrt at least 1e-12, where the slope is large but finite, and sends 0 to the clamped"
    " entries",
    "d": "where selects: the entries it replaced get exactly 0, and sqrt's infinite slope"
    " is never multiplied",
}
_check_finite_roots = which_ones(_finite_roots, "give a finite gradient everywhere", WHY_072)


ENTROPY_ROWS = [[0.5, 0.5, 0.0], [0.2, 0.3, 0.5], [1.0, 0.0, 0.0]]  # rows with exact zeros, and one without


def _check_entropy(safe_entropy: Any) -> tuple:
    import torch

    if not callable(safe_entropy):
        return incorrect(f"expected safe_entropy to be a function, got {type(safe_entropy).__name__}")
    p = torch.tensor(ENTROPY_ROWS, requires_grad=True)
    out = safe_entropy(p)
    if not isinstance(out, torch.Tensor) or out.shape != (3,):
        return incorrect(f"expected one entropy per row, a tensor of shape (3,), got {out!r}")
    positive = p.detach() > 0
    logs = torch.where(positive, p.detach(), 1.0).log()
    expected = -(p.detach() * logs).sum(-1)
    if not torch.allclose(out.detach(), expected, atol=1e-6):
        shown = [round(v, 4) + 0.0 for v in out.tolist()]
        return incorrect(
            f"the entropies you return, {shown}, are off: 0 · log 0 counts as 0, the rest as usual"
        )
    out.sum().backward()
    if p.grad is None or not torch.isfinite(p.grad).all():
        return incorrect(
            "the value is right, but p.grad is not finite where p = 0: 0 × inf still happens in backward"
        )
    if not torch.allclose(p.grad[positive], -(logs + 1)[positive], atol=1e-5):
        return incorrect("where p > 0 the gradient must stay the exact -(log p + 1)")
    return correct(
        "0 · log 0 is 0 in the value, and no 0 × inf is left for backward: the log never sees a 0."
    )


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
        task="Predict which of four ways to write sqrt of the positive part give a finite gradient at 0.",
        names=("finite_grad",),
        check=_check_finite_roots,
        hints=(
            "Follow the gradient backward from sqrt at v = 0: sqrt's derivative there is infinite. Is it"
            " multiplied by a zero (0 × inf = NaN), or is an entry picked away before sqrt saw a 0?",
            "A 0/1 mask multiplied before sqrt still feeds sqrt a 0 (and -0): its infinite slope times the"
            " mask's 0 is NaN. A mask multiplied after sqrt is the single-where trap again.",
            "A selection (where) sends a zero gradient, whatever the other branch computed; a product with a"
            " 0 mask turns the infinite slope into NaN.",
        ),
        solution='finite_grad = {"c", "d"}',
    ),
    Activity(
        id="07.3",
        task="Write safe_entropy(p): each row's entropy with 0 · log 0 = 0 and a finite gradient everywhere.",
        names=("safe_entropy",),
        check=_check_entropy,
        hints=(
            "p * p.log() at p = 0 is 0 × (-inf) = NaN, and backward meets log's slope there too.",
            "Keep the 0 away from the log itself: torch.where(p > 0, p, 1.0).log() is finite, and p times it"
            " is 0 at p = 0.",
        ),
        solution=(
            "def safe_entropy(p):\n"
            "    safe_log = torch.where(p > 0, p, 1.0).log()\n"
            "    return -(p * safe_log).sum(-1)"
        ),
    ),
)
