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


class _Recorder:
    """An SGD with learning rate 0 that records the gradient each step() applies (parameters never move)."""

    def __init__(self, params: Any) -> None:
        import torch

        self.optimizer = torch.optim.SGD(params, lr=0.0)
        self.applied: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.optimizer, name)

    def zero_grad(self, set_to_none: bool = True) -> None:
        self.optimizer.zero_grad(set_to_none=set_to_none)

    def step(self, closure: Any = None) -> Any:
        grads = [p.grad for group in self.optimizer.param_groups for p in group["params"]]
        self.applied.append([None if g is None else g.clone() for g in grads])
        return self.optimizer.step(closure)


def _check_fixed_step(fixed_step: Any) -> tuple:
    import torch

    if not callable(fixed_step):
        return incorrect(f"expected fixed_step to be a function, got {type(fixed_step).__name__}")
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    optimizer = _Recorder(model.parameters())  # zeroing before backward or after step: both are right
    inputs, targets = torch.randn(8, 3), torch.randn(8, 1)
    fixed_step(model, optimizer, inputs, targets)
    fixed_step(model, optimizer, inputs, targets)
    if len(optimizer.applied) != 2:
        return incorrect(
            f"two calls of fixed_step called optimizer.step() {len(optimizer.applied)} times, expected 2"
        )
    (first, *_), (second, *_) = optimizer.applied
    if first is None or second is None or not first.any():
        return incorrect(
            "optimizer.step() saw no gradient: backward() must come before step(), zero_grad() not in between"
        )
    if torch.allclose(second, 2 * first):
        return incorrect(
            "the second step applied twice the first step's gradient: the old gradient was carried over"
        )
    if not torch.allclose(second, first):
        return incorrect(
            f"two identical steps applied different gradients ({first.norm():.3g} and {second.norm():.3g})"
        )
    return correct("every step applies only its own gradient: two identical steps apply identical gradients.")


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
