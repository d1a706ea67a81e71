"""Your-turn activities of lesson 14 · The autograd doctor."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import member_name
from autograd_course.yourturn.choice import which_ones
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _swapped_step_stage() -> str:
    """What diagnose reports, here and now, for a TinyNet step that calls step() before backward()."""
    import torch

    from helpers import TinyNet, diagnose, make_tiny_problem

    x, y = make_tiny_problem(seed=0)
    model = TinyNet(seed=0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def train_step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        optimizer.step()
        loss.backward()
        return loss

    return diagnose(train_step, model, optimizer).stage.name


def _check_predicted_stage(predicted_stage: Any) -> tuple:
    from helpers import Stage

    name = member_name(predicted_stage, Stage)
    if name is None:
        return incorrect(f"expected a Stage such as Stage.OK, got {predicted_stage!r}")
    actual = _swapped_step_stage()  # asked of the doctor itself, so the check cannot drift from it
    if name == actual:
        return correct(f"step() ran while .grad was still None, so nothing moved: {actual}.")
    if name in ("GRAD_MISSING", "OK"):
        return incorrect(f"{name}: backward does fill .grad, and the forward is fine; ask what step() saw")
    return incorrect(
        f"{name} is not it: nothing is wrong until optimizer.step() runs; what did it have to apply?"
    )


HOLDS_132 = {  # seven ways for __init__(self, layer) to keep the layer
    "a": lambda nn, self, layer: setattr(self, "layers", [layer]),
    "b": lambda nn, self, layer: setattr(self, "layers", nn.ModuleList([layer])),
    "c": lambda nn, self, layer: setattr(self, "layers", {"main": layer}),
    "d": lambda nn, self, layer: setattr(self, "layer", layer),
    "e": lambda nn, self, layer: self.add_module("extra", layer),
    "f": lambda nn, self, layer: setattr(self, "layers", (layer,)),
    "g": lambda nn, self, layer: self.__dict__.__setitem__("layer", layer),
}


def _registering_ways() -> dict[str, bool]:
    """Whether model.parameters() lists the layer's weight after each way, found by building the module."""
    from torch import nn

    registering = {}
    for letter, hold in HOLDS_132.items():
        model, layer = nn.Module(), nn.Linear(4, 4)
        hold(nn, model, layer)
        registering[letter] = any(p is layer.weight for p in model.parameters())
    return registering


_check_registering = which_ones(_registering_ways, "make model.parameters() list the layer")


ACTIVITIES = (
    Activity(
        id="14.1",
        task="Predict the stage diagnose reports when optimizer.step() runs before loss.backward().",
        names=("predicted_stage",),
        check=_check_predicted_stage,
        hints=(
            "The step zeroes .grad to None first; what does optimizer.step() do with a .grad that is None?",
            "The parameters never change although backward gives them gradients afterwards.",
        ),
        solution="predicted_stage = Stage.PARAMS_NOT_UPDATED",
    ),
    Activity(
        id="14.2",
        task="Predict which of seven ways to keep a layer in __init__ make model.parameters() list it.",
        names=("registers",),
        check=_check_registering,
        hints=(
            "nn.Module registers a value when its __setattr__ sees a Module or Parameter assigned to it.",
            "A Python list, dict or tuple is not a Module, so what it holds stays hidden; ModuleList and"
            " add_module register.",
            "Writing into self.__dict__ goes around __setattr__.",
        ),
        solution='registers = {"b", "d", "e"}',
    ),
)
