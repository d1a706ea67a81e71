"""Your-turn activities of lesson 12 · A debugging harness."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import member_name
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


def _check_tidy_forward(tidy_forward: Any) -> tuple:
    import torch

    from helpers import TinyNet, make_tiny_problem

    if not callable(tidy_forward):
        return incorrect(f"expected tidy_forward to be a function, got {type(tidy_forward).__name__}")
    model = TinyNet(seed=0)
    x, y = make_tiny_problem(seed=0, n=8)
    out = tidy_forward(model, x)
    if not isinstance(out, torch.Tensor) or not torch.allclose(out, model(x)):
        return incorrect("tidy_forward(model, x) must give the same output as model(x)")
    if not out.requires_grad:
        return incorrect("the output does not require grad at all: nothing of the model is in the graph")
    ((out - y) ** 2).mean().backward()
    missing = [n for n, p in model.named_parameters() if p.grad is None]
    if missing:
        return incorrect(f"{', '.join(missing)} got no gradient: the graph is still cut between fc1 and fc2")
    return correct("every parameter gets a gradient: .tolist() left the graph, h itself stays in it.")


ACTIVITIES = (
    Activity(
        id="12.1",
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
        id="12.2",
        task="Write tidy_forward(model, x): TinyNet's output with every parameter in the graph.",
        names=("tidy_forward",),
        check=_check_tidy_forward,
        hints=(
            ".tolist() copies the values to Python floats: no tensor, no history.",
            "h already is a tensor on the right device; use it as it is.",
        ),
        solution="def tidy_forward(model, x):\n    h = torch.relu(model.fc1(x))\n    return model.fc2(h)",
    ),
)
