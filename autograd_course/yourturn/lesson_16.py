"""Your-turn activities of lesson 16 · Bugs from the field: the training loop."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


KEEPS = {"loss", "penalty"}


def _check_keeps_graph(keeps_graph: Any) -> tuple:
    options = {"loss", "accuracy", "grad_norm", "penalty", "lr"}
    if not isinstance(keeps_graph, (set, frozenset, list, tuple)) or not all(
        isinstance(n, str) for n in keeps_graph
    ):
        return incorrect(f'expected a set of names such as {{"lr"}}, got {keeps_graph!r}')
    names = set(keeps_graph)
    if names - options:
        return incorrect(f"unknown names {sorted(names - options)}; choose among {sorted(options)}")
    if names == KEEPS:
        return correct(
            "loss and penalty are computed from parameters with grad mode on; argmax, .grad norms "
            "and a float carry no graph."
        )
    if "penalty" not in names:
        return incorrect(
            "the penalty is a sum over p.pow(2) of parameters that require grad: it has a grad_fn"
        )
    if "accuracy" in names:
        return incorrect("argmax has no gradient: the accuracy is computed without a graph")
    if "grad_norm" in names:
        return incorrect("clip_grad_norm_ reads .grad, which does not require grad: its norm has no graph")
    return incorrect(
        f"{sorted(names)} is not it: which values are computed from parameters with grad mode on?"
    )


def _models() -> tuple:
    """Two identical small models, a batch and its labels."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    a = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    b = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    b.load_state_dict(a.state_dict())
    gen = torch.Generator().manual_seed(1)
    return a, b, torch.randn(16, 4, generator=gen) * 10, torch.randint(0, 3, (16,), generator=gen)


def _recording_scaler() -> Any:
    """A CPU GradScaler that records which of unscale_ and step were called."""
    import torch

    class RecordingScaler(torch.amp.GradScaler):
        def __init__(self) -> None:
            super().__init__("cpu")
            self.calls: list[str] = []

        def unscale_(self, optimizer: Any) -> None:
            self.calls.append("unscale_")
            super().unscale_(optimizer)

        def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
            self.calls.append("step")
            return super().step(optimizer, *args, **kwargs)

    return RecordingScaler()


def _check_step(clipped_step: Any) -> tuple:
    import torch
    from torch import nn

    if not callable(clipped_step):
        return incorrect(f"expected a function, got {type(clipped_step).__name__}")
    mine, reference, x, y = _models()
    opt_mine = torch.optim.SGD(mine.parameters(), lr=0.1)
    opt_ref = torch.optim.SGD(reference.parameters(), lr=0.1)
    scaler = _recording_scaler()
    clipped_step(mine, opt_mine, scaler, nn.functional.cross_entropy(mine(x), y))
    nn.functional.cross_entropy(reference(x), y).backward()
    nn.utils.clip_grad_norm_(reference.parameters(), max_norm=1.0)
    opt_ref.step()
    if "step" not in scaler.calls:
        return incorrect(
            "scaler.step(optimizer) was never called: with a GradScaler it replaces optimizer.step()"
        )
    diff = max((p - q).abs().max().item() for p, q in zip(mine.parameters(), reference.parameters()))
    if diff > 1e-5:
        calls = scaler.calls  # scaler.step calls unscale_ itself when the learner did not
        unscaled_first = "unscale_" in calls and calls.index("unscale_") < calls.index("step")
        where = "" if unscaled_first else " (clipping ran before scaler.unscale_)"
        return incorrect(f"the step differs from a float32 step clipped at norm 1 by up to {diff:.2g}{where}")
    return correct("the scaled step clips the true gradient and equals the float32 step.")


ACTIVITIES = (
    Activity(
        id="16.1",
        task=(
            "Predict which of five logged values (loss, accuracy, grad_norm, penalty, lr) keep a "
            "step's graph."
        ),
        names=("keeps_graph",),
        check=_check_keeps_graph,
        hints=(
            "A value keeps a graph when it is a tensor with a grad_fn: computed from tensors that "
            "require grad.",
            "argmax has no gradient; .grad does not require grad; a Python float holds nothing.",
        ),
        solution='keeps_graph = {"loss", "penalty"}',
    ),
    Activity(
        id="16.2",
        task=(
            "Write clipped_step(model, optimizer, scaler, loss): a GradScaler step that clips the true "
            "gradient at norm 1."
        ),
        names=("clipped_step",),
        check=_check_step,
        hints=(
            "Scale the loss for backward; before clipping, the gradients must be unscaled.",
            "backward on scaler.scale(loss), then scaler.unscale_(optimizer), clip_grad_norm_, "
            "scaler.step(optimizer), scaler.update().",
        ),
        solution=(
            "def clipped_step(model, optimizer, scaler, loss):\n"
            "    optimizer.zero_grad()\n"
            "    scaler.scale(loss).backward()\n"
            "    scaler.unscale_(optimizer)\n"
            "    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n"
            "    scaler.step(optimizer)\n"
            "    scaler.update()"
        ),
    ),
)
