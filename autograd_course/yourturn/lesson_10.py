"""Your-turn activities of lesson 10 · Clipping and norms."""

from __future__ import annotations

import math
from typing import Any

from autograd_course.yourturn.answers import number_of
from autograd_course.yourturn.choice import one_reason
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _check_clip_prediction(predicted_return: Any, predicted_grad: Any) -> tuple:
    returned = number_of(predicted_return)
    if returned is None:
        return incorrect(f"expected predicted_return to be a number, got {predicted_return!r}")
    grad = predicted_grad.tolist() if hasattr(predicted_grad, "tolist") else predicted_grad
    if not isinstance(grad, (list, tuple)) or len(grad) != 2 or any(number_of(g) is None for g in grad):
        return incorrect(f"expected predicted_grad to be a list of two numbers, got {predicted_grad!r}")
    grad = [number_of(g) for g in grad]
    if math.isclose(returned, 1.0):
        return incorrect(
            "you predicted 1.0: clip_grad_norm_ returns the total norm measured before it clips, not after"
        )
    if not math.isclose(returned, 5.0, rel_tol=1e-6):
        return incorrect(f"you predicted {returned}; the 2-norm of [3, 4] is sqrt(9 + 16)")
    if not all(math.isclose(a, b, rel_tol=1e-3) for a, b in zip(grad, (0.6, 0.8))):
        return incorrect(
            f"the return value is right; p.grad afterwards is not {list(grad)}: it is scaled by 1/5"
        )
    return correct("it returns 5.0, the norm before clipping, and scales p.grad to [0.6, 0.8], norm 1.")


_check_clip_after_step = one_reason(
    "c",
    {
        "a": "step() already read .grad and moved the weights before the clipping line ran",
        "b": "the next iteration starts with zero_grad(), which discards the clipped .grad before backward"
        " writes a new one",
        "c": "step() has used .grad before the clip, and the next zero_grad() discards it: clipping after"
        " the step is silently a no-op, with the same weights as no clipping at all",
        "d": "step() reads .grad without consuming it; clip_grad_norm_ finds it there and runs without error",
    },
)


ACTIVITIES = (
    Activity(
        id="10.1",
        task="Predict what clip_grad_norm_([p], max_norm=1.0) returns for p.grad = [3, 4], and p.grad after.",
        names=("predicted_return", "predicted_grad"),
        check=_check_clip_prediction,
        hints=(
            "The total norm of [3, 4] is sqrt(3² + 4²).",
            "The return value is the norm before clipping; the gradient is scaled by max_norm / norm.",
        ),
        solution="predicted_return = 5.0\npredicted_grad = [0.6, 0.8]",
    ),
    Activity(
        id="10.2",
        task="Predict what clipping after optimizer.step() does to training.",
        names=("clip_after_step",),
        check=_check_clip_after_step,
        hints=(
            "Which call reads .grad, and what happens to .grad before the next backward?",
            "Compare the weights with those of the same loop without the clipping line.",
        ),
        solution='clip_after_step = "c"',
    ),
)
