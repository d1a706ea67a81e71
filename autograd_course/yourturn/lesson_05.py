"""Your-turn activities of lesson 05 · Grad modes."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _check_eval_row(eval_requires_grad: Any, eval_dropout_active: Any) -> tuple:
    given = (eval_requires_grad, eval_dropout_active)
    if not all(isinstance(v, bool) for v in given):
        return incorrect(f"expected two booleans, got {given!r}")
    if given == (True, False):
        return correct("eval() switches dropout off and leaves recording on: two independent switches.")
    seen = []
    if not eval_requires_grad:
        seen.append("you said the output does not require grad, but eval() never touches autograd")
    if eval_dropout_active:
        seen.append("you said dropout is active, but eval() is exactly what switches it off")
    return incorrect("; ".join(seen))


def _check_fixed_mse(fixed_mse: Any) -> tuple:
    import torch

    if not callable(fixed_mse):
        return incorrect(f"expected fixed_mse to be a function, got {type(fixed_mse).__name__}")
    outputs = torch.tensor([1.0, 2.0, 4.0], requires_grad=True)
    targets = torch.tensor([1.0, 0.0, 1.0])
    loss = fixed_mse(outputs, targets)
    if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
        return incorrect(f"fixed_mse returned {type(loss).__name__}, expected a one-element tensor")
    if abs(loss.item() - 13 / 3) > 1e-5:
        return incorrect(
            f"fixed_mse gave {loss.item():.4f} for the test case, expected the mean squared error 4.3333"
        )
    if loss.grad_fn is None:
        return incorrect("the loss has no grad_fn: recording is still switched off inside fixed_mse")
    with torch.no_grad():
        quiet = fixed_mse(outputs, targets)
    if quiet.grad_fn is not None:
        return incorrect("called under no_grad, fixed_mse still records: let the caller's grad mode decide")
    return correct("the loss is recorded for training and not for a no_grad caller: the caller decides.")


ACTIVITIES = (
    Activity(
        id="05.1",
        task="Find the bug in the decorated helper and write fixed_mse, recorded for training callers.",
        names=("fixed_mse",),
        check=_check_fixed_mse,
        hints=(
            "enable_grad() around the call does not help: the decorator sets the mode inside the helper.",
            "Remove the @torch.no_grad() decorator; evaluation callers wrap their call in no_grad.",
        ),
        solution="def fixed_mse(outputs, targets):\n    return ((outputs - targets) ** 2).mean()",
    ),
    Activity(
        id="05.2",
        task="Predict the row for eval() with no grad context: does the output require grad, is dropout on?",
        names=("eval_requires_grad", "eval_dropout_active"),
        check=_check_eval_row,
        hints=(
            "model.eval() is a module switch; requires_grad is decided by grad mode.",
            "Grad mode is on by default; dropout is what eval() turns off.",
        ),
        solution="eval_requires_grad = True\neval_dropout_active = False",
    ),
)
