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

GATE_LAYERS = ["fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight", "gate.bias", "gate.weight"]


def _gate_statuses(FixedGateNet: Any) -> tuple[Any, dict[str, str]]:
    """A fresh FixedGateNet and each parameter's status after one backward on a tiny problem."""
    import torch

    from helpers import classify_parameter_gradients, make_tiny_problem

    torch.manual_seed(0)
    model = FixedGateNet()
    x, y = make_tiny_problem(seed=0, n=32)
    ((model(x) - y) ** 2).mean().backward()
    status = classify_parameter_gradients(model).status
    return model, {name: s.name for name, s in status.items()}


def _trained_ratio(model: Any) -> float:
    """The MSE after 150 Adam steps over the MSE before, on the tiny problem."""
    import torch

    from helpers import make_tiny_problem

    x, y = make_tiny_problem(seed=0, n=32)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(150):
        optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses[-1] / losses[0]


def _check_gate(FixedGateNet: Any) -> tuple:
    from torch import nn

    if not (isinstance(FixedGateNet, type) and issubclass(FixedGateNet, nn.Module)):
        return incorrect(f"expected a class, a subclass of nn.Module, got {FixedGateNet!r}")
    model, status = _gate_statuses(FixedGateNet)
    if sorted(status) != GATE_LAYERS:
        return incorrect(
            f"keep GateNet's three layers fc1, gate and fc2; your parameters are {sorted(status)}"
        )
    failing = {name: s for name, s in status.items() if s != "OK"}
    if failing:
        listed = ", ".join(f"{name} {s}" for name, s in failing.items())
        return incorrect(f"after one backward, not every parameter is OK: {listed}")
    if not _trained_ratio(model) < 0.5:
        return incorrect("every parameter gets a gradient, but 150 Adam steps do not halve the loss")
    return correct(
        "every parameter is OK and the model trains. round() is flat almost everywhere, so its derivative"
        " is 0: the gate was ZERO_GRAD, never NO_GRAD. A soft gate (or a straight-through one) lets it learn."
    )


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
    Activity(
        id="13.3",
        task="Find with the harness why GateNet's gate never learns; write FixedGateNet, in which it does.",
        names=("FixedGateNet",),
        check=_check_gate,
        hints=(
            "Run debug_training_step (or classify_parameter_gradients after one backward) on GateNet: which"
            " status do the gate's parameters get?",
            "ZERO_GRAD, not NO_GRAD: the gate is in the graph, but an operation on its path has slope 0.",
            "round() is a staircase; the gate can learn through sigmoid(...) itself, a value in (0, 1).",
        ),
        solution=(
            "class FixedGateNet(nn.Module):\n"
            "    def __init__(self) -> None:\n"
            "        super().__init__()\n"
            "        self.fc1 = nn.Linear(4, 8)\n"
            "        self.gate = nn.Linear(4, 8)\n"
            "        self.fc2 = nn.Linear(8, 1)\n"
            "\n"
            "    def forward(self, x):\n"
            "        open_ = torch.sigmoid(self.gate(x))  # soft: between 0 and 1, and differentiable\n"
            "        return self.fc2(torch.relu(self.fc1(x)) * open_)"
        ),
    ),
)
