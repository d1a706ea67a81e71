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


def _clipped_run(step: Any, max_norm: float = 0.5) -> tuple:
    """(parameters after two calls, the first call's return) of `step`, or of the reference when None."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = [(3 * torch.randn(4, 4), torch.randn(4, 1)) for _ in range(4)]
    returned = []
    for _ in range(2):
        if step is not None:
            returned.append(step(model, optimizer, batches, max_norm))
            continue
        optimizer.zero_grad()
        for x, y in batches:
            (((model(x) - y) ** 2).mean() / len(batches)).backward()
        returned.append(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm))
        optimizer.step()
    return torch.cat([p.detach().flatten() for p in model.parameters()]), returned[0]


def _check_clipped_accumulation(accumulate_and_clip: Any) -> tuple:
    import torch

    if not callable(accumulate_and_clip):
        return incorrect(f"expected a function, got {type(accumulate_and_clip).__name__}")
    got, norm = _clipped_run(accumulate_and_clip)
    want, want_norm = _clipped_run(None)
    if torch.allclose(got, _clipped_run(None, max_norm=float("inf"))[0], atol=1e-6):
        return incorrect(
            "the parameters moved exactly as without clipping: no clipped gradient reached step()"
        )
    if not torch.allclose(got, want, atol=1e-6):
        return incorrect(
            "the update is not the whole batch's gradient clipped once: clip the sum of the four parts,"
            " after the last backward and before step()"
        )
    value = number_of(norm)
    if value is None or not math.isclose(value, float(want_norm), rel_tol=1e-5):
        return incorrect(f"the update is right; return the total norm before clipping, not {norm!r}")
    return correct(
        "four backwards add up in .grad, one clip of the sum, one step; the norm before it to log."
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
    Activity(
        id="10.3",
        task="Write accumulate_and_clip(model, optimizer, batches, max_norm): one step over micro-batches,"
        " clipped, returning the norm before clipping.",
        names=("accumulate_and_clip",),
        check=_check_clipped_accumulation,
        hints=(
            "Clipping belongs between the gradients existing and step(): here, after the last micro-batch.",
            "zero_grad once, backward each part's mean / len(batches), clip_grad_norm_ once, step, return"
            " what clip_grad_norm_ returned.",
        ),
        solution=(
            "def accumulate_and_clip(model, optimizer, batches, max_norm):\n"
            "    optimizer.zero_grad()\n"
            "    for x, y in batches:\n"
            "        (((model(x) - y) ** 2).mean() / len(batches)).backward()\n"
            "    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)\n"
            "    optimizer.step()\n"
            "    return norm"
        ),
    ),
)
