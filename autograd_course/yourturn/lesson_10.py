"""Your-turn activities of lesson 10 · Clipping and norms."""

from __future__ import annotations

import copy
import math
from typing import Any

from autograd_course.yourturn.answers import number_of
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


def _check_clipped_step(clipped_step: Any) -> tuple:
    import torch
    from torch import nn

    if not callable(clipped_step):
        return incorrect(f"expected clipped_step to be a function, got {type(clipped_step).__name__}")
    g = torch.Generator().manual_seed(0)
    x = torch.randn(32, 4, generator=g) * torch.tensor([0.3, 0.3, 0.3, 3.0])
    y = x @ torch.tensor([[3.0], [-6.0], [1.5], [0.0]])
    model = nn.Linear(4, 1)
    nn.init.zeros_(model.weight), nn.init.zeros_(model.bias)  # the same start every time
    reference = copy.deepcopy(model)
    ((reference(x) - y) ** 2).mean().backward()
    expected_norm = torch.nn.utils.clip_grad_norm_(reference.parameters(), max_norm=1.0)
    expected = [p - 0.1 * p.grad for p in reference.parameters()]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    norm = clipped_step(model, optimizer, x, y)
    if not isinstance(norm, torch.Tensor):
        return incorrect(f"clipped_step should return the tensor clip_grad_norm_ returns, got {norm!r}")
    if float(norm) == 0.0:
        return incorrect(
            "it returned 0: the clipping call still runs before backward(), when there is no gradient"
        )
    if not torch.allclose(norm, expected_norm, rtol=1e-4):
        return incorrect(
            f"it returned {float(norm):.4g}, expected the norm before clipping, {float(expected_norm):.4g}"
        )
    if not all(torch.allclose(p, e, atol=1e-6) for p, e in zip(model.parameters(), expected)):
        return incorrect(
            "the norm is right but the step is not: clip between backward() and step(), not after step()"
        )
    return correct(f"it clipped a norm of {float(expected_norm):.3g} to 1 before step() used the gradients.")


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
        task="Move the clipping call in clipped_step so it clips the gradients step() uses.",
        names=("clipped_step",),
        check=_check_clipped_step,
        hints=(
            "Right after zero_grad() every .grad is None: there is nothing to clip yet.",
            "The order is zero_grad, forward, backward, clip, step.",
        ),
        solution=(
            "def clipped_step(model, optimizer, x, y):\n"
            "    optimizer.zero_grad()\n"
            "    loss = ((model(x) - y) ** 2).mean()\n"
            "    loss.backward()\n"
            "    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n"
            "    optimizer.step()\n"
            "    return norm"
        ),
    ),
)
