"""Your-turn activities of lesson 09 · Gradient hooks."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import number_of
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _check_predicted_x_grad(predicted_x_grad: Any) -> tuple:
    given, predicted_x_grad = predicted_x_grad, number_of(predicted_x_grad)
    if predicted_x_grad is None:
        return incorrect(f"expected a number such as 10.0, got {type(given).__name__} {given!r}")
    if abs(predicted_x_grad - 48.0) < 1e-6:
        return correct("dz/dy = 2y = 12, the hook doubles it to 24, and dy/dx = 2 gives x.grad = 48.")
    if abs(predicted_x_grad - 24.0) < 1e-6:
        return incorrect(
            "you gave 24, the gradient without the hook; its return value replaces dz/dy before x sees it"
        )
    if abs(predicted_x_grad - 12.0) < 1e-6:
        return incorrect(
            "you gave 12, dz/dy at y; x.grad is dz/dx, one more step of the chain rule (dy/dx = 2)"
        )
    return incorrect(
        f"you gave {predicted_x_grad}; work out dz/dy = 2y at x = 3, double it (the hook), times dy/dx"
    )


def _judge_record_max(record_max: Any, maxima: dict) -> tuple:
    """The verdict on a hook that writes into maxima (emptied first)."""
    import torch

    maxima.clear()
    w = torch.tensor([2.0, -1.0], requires_grad=True)
    w.register_hook(record_max)
    try:
        (w * torch.tensor([3.0, -5.0])).sum().backward()
    except TypeError as error:
        return incorrect(
            f"backward raised TypeError ({error}): the hook must return None, not the value it stores"
        )
    if w.grad.tolist() != [3.0, -5.0]:
        return incorrect(
            f"the gradient changed to {w.grad.tolist()} (expected [3.0, -5.0]): return None from the hook"
        )
    if "w" not in maxima:
        return incorrect(
            f"maxima holds {maxima!r} after backward; store the largest |grad| under the key 'w'"
        )
    if isinstance(maxima["w"], torch.Tensor):
        return incorrect(
            "maxima['w'] is a tensor: keep a number (.item()), so the hook holds no gradient-sized memory"
        )
    if maxima["w"] != 5.0:
        return incorrect(f"maxima['w'] is {maxima['w']!r}; for a gradient [3, -5] the largest |grad| is 5.0")
    return correct("the hook stored 5.0 and returned None, so backward ran and the gradient is untouched.")


def _check_record_max(record_max: Any, maxima: Any) -> tuple:
    if not callable(record_max):
        return incorrect(
            f"expected record_max to be a function of one argument, got {type(record_max).__name__}"
        )
    if not isinstance(maxima, dict):
        return incorrect(f"expected maxima to be a dict, got {type(maxima).__name__}")
    yours = dict(maxima)  # what your own tries stored: put back afterwards
    try:
        return _judge_record_max(record_max, maxima)
    finally:
        maxima.clear()
        maxima.update(yours)


def _check_final_norms(watch_final_norms: Any) -> tuple:
    import torch

    from helpers import TinyNet, make_tiny_problem

    if not callable(watch_final_norms):
        return incorrect(f"expected a function of (model, norms), got {type(watch_final_norms).__name__}")
    model, norms = TinyNet(seed=1), {}
    x, y = make_tiny_problem(seed=1, n=16)
    handles = watch_final_norms(model, norms)
    if not isinstance(handles, (list, tuple)) or not all(hasattr(h, "remove") for h in handles):
        return incorrect(f"return the list of handles the register calls give, got {handles!r}")
    for part in range(4):  # four micro-batches, one step
        rows = slice(4 * part, 4 * part + 4)
        ((model(x[rows]) - y[rows]) ** 2).mean().backward()
    for handle in handles:
        handle.remove()
    expected = {name: p.grad.norm().item() for name, p in model.named_parameters()}
    if set(norms) != set(expected):
        return incorrect(f"norms has the keys {sorted(norms)}, expected every parameter: {sorted(expected)}")
    if any(isinstance(v, torch.Tensor) for v in norms.values()):
        return incorrect("store floats (.item()), not tensors: a tensor keeps gradient memory alive")
    off = [n for n in expected if abs(norms[n] - expected[n]) > 1e-5 * max(1.0, expected[n])]
    if off:
        return incorrect(
            f"{', '.join(off)}: the stored norm is not the norm of the complete .grad; a tensor hook sees "
            "one micro-batch's share, register_post_accumulate_grad_hook sees the sum"
        )
    return correct("a post-accumulate hook on every parameter read the complete gradient after each pass.")


ACTIVITIES = (
    Activity(
        id="09.1",
        task="Predict x.grad when a hook on y = 2x returns grad * 2 and z = y ** 2 at x = 3.",
        names=("predicted_x_grad",),
        check=_check_predicted_x_grad,
        hints=(
            "Without the hook: dz/dy = 2y = 12 and dz/dx = 2 * 12 = 24.",
            "The hook's return value replaces dz/dy before it flows on to x.",
        ),
        solution="predicted_x_grad = 48.0",
    ),
    Activity(
        id="09.2",
        task="Write a hook record_max(grad) storing grad.abs().max().item() in maxima['w'], returning None.",
        names=("record_max", "maxima"),
        check=_check_record_max,
        hints=(
            "A lambda returns the value of its expression; dict.setdefault returns the stored float.",
            "Use a def with a plain assignment, maxima['w'] = ..., and no return statement.",
        ),
        solution='maxima = {}\n\n\ndef record_max(grad):\n    maxima["w"] = grad.abs().max().item()',
    ),
    Activity(
        id="09.3",
        task=(
            "Write watch_final_norms(model, norms): store every parameter's complete-gradient norm; "
            "return the handles."
        ),
        names=("watch_final_norms",),
        check=_check_final_norms,
        hints=(
            "register_hook sees one backward's contribution; the complete gradient is in param.grad "
            "afterwards.",
            "param.register_post_accumulate_grad_hook(fn) calls fn(param) once .grad holds the sum.",
        ),
        solution=(
            "def watch_final_norms(model, norms):\n"
            "    handles = []\n"
            "    for name, param in model.named_parameters():\n"
            "        def store(p, name=name):\n"
            "            norms[name] = p.grad.norm().item()\n"
            "        handles.append(param.register_post_accumulate_grad_hook(store))\n"
            "    return handles"
        ),
    ),
)
