"""Your-turn activities of lesson 06 · Frozen and forgotten parameters."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import number_of, whole_number_of
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _check_count(predicted_frozen_count: Any) -> tuple:
    count = whole_number_of(predicted_frozen_count)
    if count is None:
        return incorrect(f"expected a whole number, got {type(predicted_frozen_count).__name__}")
    if count == 0:
        return correct("module.requires_grad = False only stores a Python attribute; no parameter is frozen.")
    return incorrect(f"you gave {count}; nn.Module accepts any new attribute: what did it touch?")


CLASSIFIER = {  # the lesson's Classifier: parameter names and shapes
    "encoder.0.weight": (16, 8),
    "encoder.0.bias": (16,),
    "encoder.2.weight": (16, 16),
    "encoder.2.bias": (16,),
    "head.weight": (3, 16),
    "head.bias": (3,),
}


def _positive(lr: Any) -> bool:
    """A learning rate that moves parameters: a number (or one-element tensor) above zero."""
    value = number_of(lr)
    return value is not None and value > 0


def _check_fixed(net_fixed: Any, optimizer_fixed: Any) -> tuple:
    import torch

    if not isinstance(net_fixed, torch.nn.Module) or not isinstance(optimizer_fixed, torch.optim.Optimizer):
        return incorrect(
            f"expected a module and an optimizer, got {type(net_fixed).__name__}"
            f" and {type(optimizer_fixed).__name__}"
        )
    shapes = {n: tuple(p.shape) for n, p in net_fixed.named_parameters()}
    if type(net_fixed).__name__ != "Classifier" or shapes != CLASSIFIER:
        return incorrect(
            f"net_fixed is a {type(net_fixed).__name__} with parameters {sorted(shapes) or 'none'};"
            " the setup builds the lesson's Classifier (an encoder and a head): keep that model"
        )
    held = {id(p) for group in optimizer_fixed.param_groups for p in group["params"]}
    frozen = [n for n, p in net_fixed.named_parameters() if not p.requires_grad]
    missing = [n for n, p in net_fixed.named_parameters() if id(p) not in held]
    if frozen:
        return incorrect(f"still frozen: {frozen}")
    if missing:
        return incorrect(f"not in the optimizer: {missing}")
    still = [g.get("lr") for g in optimizer_fixed.param_groups if not _positive(g.get("lr"))]
    if still:
        return incorrect(
            f"a parameter group has learning rate {still[0]!r}: step() would move nothing; give it lr > 0"
        )
    return correct("every parameter requires grad and the optimizer holds it: all of it can train.")


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
        task="Find the two bugs in the three-line setup and write net_fixed and optimizer_fixed.",
        names=("net_fixed", "optimizer_fixed"),
        check=_check_fixed,
        hints=(
            "One line freezes part of the model; another builds the optimizer over part of it.",
            "Drop the freezing line and build Adam over net_fixed.parameters().",
        ),
        solution=(
            "net_fixed = Classifier().to(device)\n"
            "optimizer_fixed = torch.optim.Adam(net_fixed.parameters(), lr=1e-2)"
        ),
    ),
)
