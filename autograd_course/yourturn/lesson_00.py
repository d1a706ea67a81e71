"""Your-turn activities of lesson 00 · The mental model."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import number_of
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _check_predicted_grad(predicted_grad: Any) -> tuple:
    given, predicted_grad = predicted_grad, number_of(predicted_grad)
    if predicted_grad is None:
        return incorrect(f"expected a number such as 7.0, got {type(given).__name__} {given!r}")
    if abs(predicted_grad - 12.0) < 1e-6:
        return correct("d(x³)/dx = 3x² = 12 at x = 2, and autograd agrees.")
    if abs(predicted_grad - 8.0) < 1e-6:
        return incorrect("you gave 8.0, the value of x³ itself; .grad holds the slope 3x², not the output")
    return incorrect(
        f"you gave {predicted_grad}; x.grad after (x**3).backward() at x = 2 is 3x² evaluated at 2"
    )


def _check_fixed_leaf(fixed_w: Any) -> tuple:
    import torch

    w = fixed_w

    if not isinstance(w, torch.Tensor):
        return incorrect(f"expected fixed_w to be a tensor, got {type(w).__name__}")
    if w.tolist() != [1.0, 2.0]:
        return incorrect(f"keep the values [1.0, 2.0]; fixed_w holds {w.tolist()}")
    if not w.requires_grad:
        return incorrect(
            "fixed_w.requires_grad is False, so (fixed_w ** 2).sum() is not recorded and backward() raises"
        )
    if not w.is_leaf:
        name = type(w.grad_fn).__name__
        return incorrect(
            f"fixed_w is not a leaf (grad_fn={name}); create it with requires_grad=True, do not compute it"
        )
    probe = w.detach().clone().requires_grad_(True)
    (probe**2).sum().backward()
    return correct(
        f"fixed_w is a leaf that requires grad; backward() gives fixed_w.grad = {probe.grad.tolist()}."
    )


def _records() -> list:
    """(name, tensor, how many distinct backward nodes it has) for five records, one with a diamond."""
    import torch

    x = torch.tensor([2.0], requires_grad=True)
    w = torch.tensor([1.0, -1.0], requires_grad=True)
    y = x * 2
    chain = (x * 3) ** 2  # PowBackward0, MulBackward0
    diamond = y * y + y  # y's MulBackward0 is reached by three paths
    two_leaves = (w * x).sum().exp()  # ExpBackward0, SumBackward0, MulBackward0
    branches = (
        x * 2 + (x + 1).exp()
    )  # two branches: AddBackward0 over MulBackward0 and ExpBackward0, AddBackward0
    return [
        ("(x * 3) ** 2", chain, 2),
        ("y * y + y with y = x * 2", diamond, 3),
        ("(w * x).sum().exp()", two_leaves, 3),
        ("x * 2 + (x + 1).exp()", branches, 4),
        ("a tensor with no record", torch.ones(2), 0),
    ]


def _check_count_ops(count_ops: Any) -> tuple:
    if not callable(count_ops):
        return incorrect(f"expected count_ops to be a function, got {type(count_ops).__name__}")
    for name, t, expected in _records():
        got = count_ops(t)
        if got == expected:
            continue
        if isinstance(got, int) and got > expected and name.startswith("y * y"):
            return incorrect(
                f"{name}: you counted {got}; a node reached by several paths is still one node: remember the"
                " ones you have seen"
            )
        return incorrect(f"{name}: you counted {got!r}, the record holds {expected} operations")
    return correct("every node counted once, leaves' AccumulateGrad left out, and no record counts 0.")


ACTIVITIES = (
    Activity(
        id="00.1",
        task="Find the bug: `w = torch.tensor([1.0, 2.0])`; `(w ** 2).sum().backward()` raises. "
        "Write the corrected first line as fixed_w.",
        names=("fixed_w",),
        check=_check_fixed_leaf,
        hints=(
            "The error says element 0 of tensors does not require grad: nothing was recorded.",
            "A leaf the recorder follows is created with requires_grad=True.",
        ),
        solution="fixed_w = torch.tensor([1.0, 2.0], device=device, requires_grad=True)",
    ),
    Activity(
        id="00.2",
        task="Predict x.grad after `x = torch.tensor(2.0, requires_grad=True)` and `(x ** 3).backward()`.",
        names=("predicted_grad",),
        check=_check_predicted_grad,
        hints=(
            "backward() stores dz/dx in x.grad; here z = x³.",
            "d(x³)/dx = 3x². Evaluate it at x = 2.",
        ),
        solution="predicted_grad = 12.0",
    ),
    Activity(
        id="00.3",
        task="Write count_ops(t): the number of operations in the record behind t, each node counted once.",
        names=("count_ops",),
        check=_check_count_ops,
        hints=(
            "Start at t.grad_fn and follow next_functions, as walk() does; a leaf's node is AccumulateGrad.",
            "walk() visits a node once per path. Keep a set of the nodes seen and skip those already in it.",
        ),
        solution=(
            "def count_ops(t):\n"
            "    seen, todo = set(), [t.grad_fn]\n"
            "    while todo:\n"
            "        fn = todo.pop()\n"
            "        if fn is None or fn in seen or hasattr(fn, 'variable'):\n"
            "            continue\n"
            "        seen.add(fn)\n"
            "        todo.extend(child for child, _ in fn.next_functions)\n"
            "    return len(seen)"
        ),
    ),
)
