"""Your-turn activities of lesson 09 · Gradient hooks."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import number_of
from autograd_course.yourturn.choice import which_ones
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


def _hooks_092(maxima: dict) -> dict:
    """Six hooks meant to note the largest gradient; which leave backward and w.grad as they were?"""
    return {
        "a": lambda g: g * 2,
        "b": lambda g: maxima.update(w=g.abs().max().item()),
        "c": lambda g: maxima.setdefault("w", []).append(g.abs().max().item()),
        "d": lambda g: maxima.setdefault("w", g.abs().max().item()),
        "e": lambda g: g.clone(),
        "f": lambda g: g.abs().max(),
    }


def _harmless_hooks() -> dict[str, bool]:
    """Whether backward runs and w.grad is 3 after each hook, found by running it."""
    import torch

    harmless = {}
    for letter in _hooks_092({}):
        w = torch.tensor([2.0], requires_grad=True)
        w.register_hook(_hooks_092({})[letter])  # each with its own empty maxima
        try:
            (w * 3).backward()
        except (TypeError, RuntimeError):
            harmless[letter] = False
        else:
            harmless[letter] = w.grad.tolist() == [3.0]
    return harmless


WHY_092 = {
    "a": "a returned tensor replaces the gradient, and g * 2 doubles it",
    "b": "dict.update returns None, and a hook that returns None leaves the gradient as it was",
    "c": "list.append returns None, so the gradient goes on unchanged",
    "d": "setdefault returns the stored value, a float, and backward refuses a hook"
    " that returns a non-tensor",
    "e": "clone returns a tensor of the same shape and values, so the gradient is replaced by an equal one",
    "f": "max returns a 0-dim tensor, and backward refuses a hook that changes the gradient's size",
}
_check_harmless = which_ones(_harmless_hooks, "let backward run and leave w.grad at 3", WHY_092)


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
        task="Predict which of six tensor hooks let backward run and leave the gradient unchanged.",
        names=("harmless",),
        check=_check_harmless,
        hints=(
            "Look at what each lambda's expression returns: None, a tensor, or something else.",
            "update and list.append return None; setdefault returns the stored value, which may be a list.",
            "A returned tensor replaces the gradient: it needs the gradient's shape, and its values count.",
        ),
        solution='harmless = {"b", "c", "e"}',
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
            "param.register_post_accumulate_grad_hook(fn) calls fn(param) after every backward has added to"
            " .grad; what the last call sees is the complete gradient.",
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
