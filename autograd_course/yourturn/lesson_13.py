"""Your-turn activities of lesson 13 · A debugging harness."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import member_name
from autograd_course.yourturn.choice import which_ones
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _frozen_and_left_out_status() -> str:
    """What classify_parameter_gradients says of a frozen parameter left out of the optimizer."""
    import torch
    from torch import nn

    from helpers import classify_parameter_gradients

    layer = nn.Linear(2, 1)
    layer.weight.requires_grad_(False)
    optimizer = torch.optim.SGD([layer.bias], lr=0.1)
    layer(torch.ones(1, 2)).sum().backward()
    return classify_parameter_gradients(layer, optimizer).status["weight"].name


def _check_predicted_status(predicted_status: Any) -> tuple:
    from helpers import GradStatus

    name = member_name(predicted_status, GradStatus)
    if name is None:
        return incorrect(f"expected a GradStatus such as GradStatus.OK, got {predicted_status!r}")
    actual = _frozen_and_left_out_status()  # asked of the toolkit itself, so the check cannot drift from it
    if name == actual:
        return correct(
            f"{actual}: requires_grad is the first question, so the optimizer is never asked about it."
        )
    if name == "NOT_IN_OPTIMIZER":
        return incorrect(
            "NOT_IN_OPTIMIZER is asked later; the questions go in order and the first 'yes' wins"
        )
    if name == "NO_GRAD":
        return incorrect(
            "it has no .grad, true, but an earlier question already decided: look at the tree's top"
        )
    return incorrect(f"{name} comes from a later question; follow the decision tree from its first question")


TIDY_LINES_122 = {  # six "tidy" lines applied to an activation h; which keep the path to fc1?
    "a": lambda torch, h: h.clone(),
    "b": lambda torch, h: h.new_tensor(h.tolist()),
    "c": lambda torch, h: torch.stack([row for row in h]),
    "d": lambda torch, h: h.to(torch.float32),
    "e": lambda torch, h: h.data,
    "f": lambda torch, h: torch.as_tensor(h),
}


def _cutting_lines() -> dict[str, bool]:
    """Whether fc1 gets no gradient after each tidy line, found by running it on TinyNet."""
    import torch

    from helpers import TinyNet, make_tiny_problem

    cut = {}
    for letter, tidy in TIDY_LINES_122.items():
        model = TinyNet(seed=0)
        x, y = make_tiny_problem(seed=0, n=8)
        out = model.fc2(tidy(torch, torch.relu(model.fc1(x))))
        if out.requires_grad:
            ((out - y) ** 2).mean().backward()
        cut[letter] = model.fc1.weight.grad is None
    return cut


_check_cutting = which_ones(_cutting_lines, "cut fc1 out of the graph")


ACTIVITIES = (
    Activity(
        id="13.1",
        task="Predict the GradStatus of a parameter that is frozen and also missing from the optimizer.",
        names=("predicted_status",),
        check=_check_predicted_status,
        hints=(
            "classify_parameter_gradients asks its questions in order; the first 'yes' names the status.",
            "Look at the first question of the decision tree above.",
        ),
        solution="predicted_status = GradStatus.FROZEN",
    ),
    Activity(
        id="13.2",
        task="Predict which of six 'tidy' lines between fc1 and fc2 leave fc1 without a gradient.",
        names=("cuts",),
        check=_check_cutting,
        hints=(
            "A line keeps fc1 in the graph when its result is computed from h by a recorded operation.",
            "Going through Python numbers (.tolist()) or through .data gives a tensor with no history.",
            "clone and stack are recorded operations; as_tensor and .to() to the same dtype return h itself.",
        ),
        solution='cuts = {"b", "e"}',
    ),
)
