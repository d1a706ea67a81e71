"""Your-turn activities of lesson 06 · Frozen and forgotten parameters."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import whole_number_of
from autograd_course.yourturn.choice import one_reason
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _check_count(predicted_frozen_count: Any) -> tuple:
    count = whole_number_of(predicted_frozen_count)
    if count is None:
        return incorrect(f"expected a whole number, got {type(predicted_frozen_count).__name__}")
    if count == 0:
        return correct("module.requires_grad = False only stores a Python attribute; no parameter is frozen.")
    return incorrect(f"you gave {count}; nn.Module accepts any new attribute: what did it touch?")


_check_unfrozen_late = one_reason(
    "b",
    {
        "a": "requires_grad_(True) runs before backward, so backward does fill the encoder's .grad",
        "b": "backward fills .grad for every tensor that requires grad, but Adam was built from a list that"
        " left the encoder out, and unfreezing later does not add it: step() never reads that .grad",
        "c": "the optimizer holds the list it was given when it was built; the encoder is not in it",
        "d": "an optimizer can only move what it holds, and it never holds tensors with no gradient",
    },
)


def _unfrozen_run(unfreeze: Any) -> tuple:
    """A head trained one step with a frozen encoder, then `unfreeze(encoder, optimizer)` and a step."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    x, y = torch.randn(16, 4), torch.randn(16, 2)
    net[0].requires_grad_(False)
    optimizer = torch.optim.Adam([p for p in net.parameters() if p.requires_grad], lr=1e-2)

    def step() -> None:
        optimizer.zero_grad()
        ((net(x) - y) ** 2).mean().backward()
        optimizer.step()

    step()
    unfreeze(net[0], optimizer)
    before = [p.detach().clone() for p in net.parameters()]
    step()
    moved = [not torch.equal(p.detach(), b) for p, b in zip(net.parameters(), before)]
    return net, optimizer, moved


def _check_unfreeze(unfreeze: Any) -> tuple:
    if not callable(unfreeze):
        return incorrect(f"expected unfreeze to be a function, got {type(unfreeze).__name__}")
    net, optimizer, moved = _unfrozen_run(unfreeze)
    held = [p for group in optimizer.param_groups for p in group["params"]]
    encoder = list(net[0].parameters())
    if not all(p.requires_grad for p in encoder):
        return incorrect("the encoder still does not require grad: backward leaves its .grad None")
    if not all(sum(h is p for h in held) == 1 for p in encoder):
        return incorrect(
            "the optimizer does not hold each encoder parameter once: backward fills .grad, step() never"
            " reads it"
        )
    if optimizer.state[net[2].weight].get("step", 0) != 2:
        return incorrect("the head lost its Adam state: keep the optimizer, add to it")
    if not all(moved):
        return incorrect("after unfreeze and one step, some parameters did not move")
    return correct(
        "the encoder requires grad again and sits in its own parameter group; the head keeps its state."
    )


ACTIVITIES = (
    Activity(
        id="06.1",
        task="Predict how many parameters `probe.encoder.requires_grad = False` freezes.",
        names=("predicted_frozen_count",),
        check=_check_count,
        hints=(
            "Note the missing underscore: this is an assignment, not the requires_grad_ method.",
            "nn.Module stores unknown attributes as plain Python attributes.",
        ),
        solution="predicted_frozen_count = 0",
    ),
    Activity(
        id="06.2",
        task="Predict what one step does to an encoder unfrozen after the optimizer was built.",
        names=("after_unfreezing",),
        check=_check_unfrozen_late,
        hints=(
            "Two separate questions: does backward compute the encoder's gradient, and does step() use it?",
            "The list comprehension runs once, when the optimizer is built.",
        ),
        solution='after_unfreezing = "b"',
    ),
    Activity(
        id="06.3",
        task="Write unfreeze(module, optimizer) so that the next step trains a module frozen when the"
        " optimizer was built.",
        names=("unfreeze",),
        check=_check_unfreeze,
        hints=(
            "Two things stop the encoder: its parameters' flag, and the optimizer's list.",
            "requires_grad_(True) on the module, and optimizer.add_param_group({'params': ...}) for its"
            " parameters.",
        ),
        solution=(
            "def unfreeze(module, optimizer):\n"
            "    module.requires_grad_(True)\n"
            "    optimizer.add_param_group({'params': list(module.parameters())})"
        ),
    ),
)
