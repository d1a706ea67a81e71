"""Your-turn activities of lesson 18 · Bugs from the field: wrappers."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _unused_for_aux() -> list[int]:
    """Indices of the parameters a task-"aux" backward leaves without .grad, asked of torch itself."""
    import torch
    from torch import nn

    trunk = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
    heads = nn.ModuleDict({"main": nn.Linear(16, 3), "aux": nn.Linear(16, 2), "extra": nn.Linear(16, 4)})
    model = nn.ModuleDict({"trunk": trunk, "heads": heads})
    heads["aux"](trunk(torch.randn(4, 8))).sum().backward()
    return [i for i, (_, p) in enumerate(model.named_parameters()) if p.grad is None]


def _check_unused_indices(unused_indices: Any) -> tuple:
    values = unused_indices
    if not isinstance(values, (list, tuple)) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in values
    ):
        return incorrect(f"expected a list of indices such as [4, 5], got {unused_indices!r}")
    actual = _unused_for_aux()
    found = sorted(values)
    if found == actual:
        return correct(
            f"{actual}: the indices follow named_parameters(): trunk 0-1, main 2-3, aux 4-5, extra 6-7; "
            "a task-aux batch leaves main and extra without a gradient."
        )
    if found == [4, 5]:
        return incorrect("4 and 5 are the aux head itself, which this batch uses; which heads does it skip?")
    if found in ([2, 3], [6, 7]):
        return incorrect(f"{found} is one of the skipped heads; a task-aux batch skips two")
    return incorrect(
        f"{found} is not it: number the parameters in named_parameters() order, weight then bias"
    )


def _check_status(layers_status: Any) -> tuple:
    from helpers import GradStatus

    if not isinstance(layers_status, GradStatus):
        return incorrect(f"expected a GradStatus such as GradStatus.NO_GRAD, got {layers_status!r}")
    if layers_status is GradStatus.OK:
        return correct("the non-reentrant version records the graph, so gradients reach the layers.")
    return incorrect(
        f"you said {layers_status.name}; use_reentrant=False does not need an input that requires grad"
    )


def _three_heads() -> Any:
    """A trunk and three task heads, forward(x, task), as in 18.1."""
    import torch
    from torch import nn

    class ThreeHeads(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.trunk = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
            self.heads = nn.ModuleDict(
                {"main": nn.Linear(16, 3), "aux": nn.Linear(16, 2), "extra": nn.Linear(16, 4)}
            )

        def forward(self, x: torch.Tensor, task: str) -> torch.Tensor:
            return self.heads[task](self.trunk(x)).sum()

    torch.manual_seed(0)
    return ThreeHeads()


def _task_problem(loss_for: Any, task: str) -> str | None:
    """What is wrong with loss_for's gradients for one task: a sentence, or None."""
    import torch

    model, true_model, x = _three_heads(), _three_heads(), torch.randn(4, 8)
    true_model(x, task).backward()
    loss_for(model, x, task).backward()
    pairs = list(zip(model.named_parameters(), true_model.parameters()))
    missing = [name for (name, p), _ in pairs if p.grad is None]
    if missing:
        return f"a task-{task} batch leaves {', '.join(missing)} without .grad: DDP would wait for them"
    truth = [t.grad if t.grad is not None else torch.zeros_like(t) for _, t in pairs]
    wrong = [name for ((name, p), _), t in zip(pairs, truth) if not torch.allclose(p.grad, t, atol=1e-6)]
    if wrong:
        return (
            f"every parameter has a .grad, but for task {task} {', '.join(wrong)} differ from the task loss's"
        )
    return None


def _check_loss_for(loss_for: Any) -> tuple:
    if not callable(loss_for):
        return incorrect(f"expected a function loss_for(model, x, task), got {loss_for!r}")
    for task in ("main", "aux", "extra"):
        problem = _task_problem(loss_for, task)
        if problem:
            return incorrect(problem)
    return correct(
        "every parameter gets a .grad on every task, and it is the task loss's gradient (zeros for the heads"
        " not used): DDP finds every gradient ready without find_unused_parameters."
    )


def _true_output_grad_norms(model: Any, x: Any) -> dict[str, float]:
    """The norm of d(sum of the output)/d(each child's output), from retain_grad on a manual forward."""
    outputs, h = {}, x
    for name, child in model.named_children():
        h = child(h)
        h.retain_grad()
        outputs[name] = h
    h.sum().backward()
    model.zero_grad(set_to_none=True)
    return {name: out.grad.norm().item() for name, out in outputs.items()}


def _hooks_left(model: Any) -> int:
    """How many module hooks of any kind the model's modules still hold."""
    kinds = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")
    return sum(len(getattr(m, kind, {})) for m in model.modules() for kind in kinds)


def _check_monitor(output_grad_norms: Any) -> tuple:
    import torch
    from torch import nn

    if not callable(output_grad_norms):
        return incorrect(f"expected a function output_grad_norms(model, x), got {output_grad_norms!r}")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    x = torch.randn(5, 4)
    wanted = _true_output_grad_norms(model, x)
    for attempt in ("first", "second"):
        found = output_grad_norms(model, x)
        if not isinstance(found, dict) or sorted(found) != sorted(wanted):
            return incorrect(f"expected a dict keyed by the children's names {sorted(wanted)}, got {found!r}")
        off = [n for n in wanted if abs(float(found[n]) - wanted[n]) > 1e-5 * max(1.0, wanted[n])]
        if off:
            return incorrect(
                f"on the {attempt} call, the norms of {off} are not those of the outputs' gradients"
            )
    if _hooks_left(model):
        return incorrect(f"after your function the model still holds {_hooks_left(model)} hooks: remove them")
    return correct(
        "the gradient with respect to each child's output, call after call, and no hook left behind."
    )


ACTIVITIES = (
    Activity(
        id="18.1",
        task="Predict the parameter indices DDP reports as unused for a task-aux batch with three heads.",
        names=("unused_indices",),
        check=_check_unused_indices,
        hints=(
            "DDP numbers parameters in named_parameters() order: trunk, then the heads in insertion order.",
            "Each Linear has a weight and a bias; a task-aux batch reaches the trunk and the aux head only.",
        ),
        solution="unused_indices = [2, 3, 6, 7]",
    ),
    Activity(
        id="18.2",
        task=(
            "Write loss_for(model, x, task): the task's loss, with a .grad for every parameter and the"
            " gradients of the task loss itself, so plain DDP never waits."
        ),
        names=("loss_for",),
        check=_check_loss_for,
        hints=(
            "DDP waits for a gradient from every parameter; a gradient of zeros is still a gradient.",
            "Add to the task's loss a term that touches every parameter and is exactly zero, with a zero"
            " derivative: 0 times something computed from them.",
        ),
        solution=(
            "def loss_for(model, x, task):\n"
            "    touch_all = sum(p.sum() for p in model.parameters())\n"
            "    return model(x, task) + 0.0 * touch_all"
        ),
    ),
    Activity(
        id="18.3",
        task=(
            "Predict the status of the encoder layers' parameters with use_reentrant=False and the "
            "frozen embedding."
        ),
        names=("layers_status",),
        check=_check_status,
        hints=(
            "The non-reentrant version records the forward graph as usual and only recomputes activations.",
            "Does it still need an input that requires grad for backward to reach the parameters?",
        ),
        solution="layers_status = GradStatus.OK",
    ),
    Activity(
        id="18.4",
        task=(
            "Write output_grad_norms(model, x): with backward hooks, the norm of the gradient with respect to"
            " each child's output, leaving no hook behind."
        ),
        names=("output_grad_norms",),
        check=_check_monitor,
        hints=(
            "register_full_backward_hook(hook) calls hook(module, grad_input, grad_output); which of the two"
            " is the gradient with respect to the module's output?",
            "Every register_... call returns a handle: keep them, and call handle.remove() on each after the"
            " backward, even if it raises (try/finally).",
        ),
        solution=(
            "def output_grad_norms(model, x):\n"
            "    norms, handles = {}, []\n"
            "    for name, child in model.named_children():\n"
            "        hook = lambda module, grad_input, grad_output, name=name: norms.__setitem__(\n"
            "            name, grad_output[0].norm().item()\n"
            "        )\n"
            "        handles.append(child.register_full_backward_hook(hook))\n"
            "    try:\n"
            "        model(x).sum().backward()\n"
            "    finally:\n"
            "        for handle in handles:\n"
            "            handle.remove()\n"
            "    return norms"
        ),
    ),
)
