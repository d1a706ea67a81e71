"""Your-turn activities of lesson 02 · Gradient accumulation."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _check_prediction(predicted_grad_after_5: Any) -> tuple:
    if not isinstance(predicted_grad_after_5, (int, float)) or isinstance(predicted_grad_after_5, bool):
        return incorrect(f"expected a number, got {type(predicted_grad_after_5).__name__}")
    if abs(predicted_grad_after_5 - 15.0) < 1e-6:
        return correct("each call adds 3x² = 3, and nothing clears .grad: 5 × 3 = 15.")
    if abs(predicted_grad_after_5 - 3.0) < 1e-6:
        return incorrect("you gave 3.0, one call's gradient; backward() adds to .grad, it does not set it")
    return incorrect(f"you gave {predicted_grad_after_5}; each call adds d(x³)/dx at x = 1 to x.grad")


def _check_fixed_step(fixed_step: Any) -> tuple:
    import torch

    if not callable(fixed_step):
        return incorrect(f"expected fixed_step to be a function, got {type(fixed_step).__name__}")
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)  # lr 0: parameters stay, so gradients must repeat
    inputs, targets = torch.randn(8, 3), torch.randn(8, 1)
    fixed_step(model, optimizer, inputs, targets)
    first = model.weight.grad.clone() if model.weight.grad is not None else None
    fixed_step(model, optimizer, inputs, targets)
    second = model.weight.grad
    if first is None or second is None:
        return incorrect("after fixed_step, model.weight.grad is None: the step must still call backward()")
    if torch.allclose(second, 2 * first):
        return incorrect("the second call's gradient is twice the first: the old gradient was carried over")
    if not torch.allclose(second, first):
        return incorrect(
            f"two identical steps gave different gradients ({first.norm():.3g} and {second.norm():.3g})"
        )
    return correct("every call starts from a clean .grad: two identical steps give identical gradients.")


ACTIVITIES = (
    Activity(
        id="02.1",
        task="Predict x.grad after five calls of (x ** 3).backward() at x = 1 with no zeroing.",
        names=("predicted_grad_after_5",),
        check=_check_prediction,
        hints=("backward() adds into .grad.", "One call adds 3x² = 3 at x = 1; count the calls."),
        solution="predicted_grad_after_5 = 15.0",
    ),
    Activity(
        id="02.2",
        task="Fix the training step so no gradient carries over to the next step.",
        names=("fixed_step",),
        check=_check_fixed_step,
        hints=(
            "Which line of a training loop resets .grad?",
            "Call optimizer.zero_grad() before loss.backward().",
        ),
        solution=(
            "def fixed_step(model, optimizer, inputs, targets):\n"
            "    optimizer.zero_grad()\n"
            "    loss = ((model(inputs) - targets) ** 2).mean()\n"
            "    loss.backward()\n"
            "    optimizer.step()\n"
            "    return loss"
        ),
    ),
)
