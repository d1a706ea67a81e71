"""Your-turn activities of lesson 13 · The autograd doctor."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import graph_leaves, member_name
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


def _check_held_net(HeldNet: Any) -> tuple:
    import torch
    from torch import nn

    if not (isinstance(HeldNet, type) and issubclass(HeldNet, nn.Module)):
        return incorrect(f"expected HeldNet to be an nn.Module class, got {HeldNet!r}")
    layer = nn.Linear(4, 4)
    try:
        model = HeldNet(layer)
    except TypeError as exc:
        return incorrect(f"HeldNet(layer) failed: {exc}; its __init__ takes the layer to hold")
    held = {id(p) for p in model.parameters()}
    if not {id(layer.weight), id(layer.bias)} <= held:
        return incorrect(
            "model.parameters() does not list the layer you passed in: assign it as an attribute "
            "(a plain list or dict does not register it)"
        )
    x = torch.randn(8, 4)
    out = model(x)
    if not isinstance(out, torch.Tensor) or out.shape != (8, 1):
        return incorrect(f"expected an output of shape (8, 1), got {getattr(out, 'shape', out)!r}")
    orphans = [tuple(t.shape) for t in graph_leaves(out.pow(2).mean()) if id(t) not in held]
    if orphans:
        return incorrect(
            f"the loss reaches tensors of shapes {sorted(orphans)} that the model does not hold: "
            "does forward call the layer passed in, or one from outside?"
        )
    if id(layer.weight) not in {id(t) for t in graph_leaves(out.pow(2).mean())}:
        return incorrect("forward never uses the layer passed in: compute head(tanh(layer(x)))")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    before = layer.weight.detach().clone()
    model(x).pow(2).mean().backward()
    optimizer.step()
    if torch.equal(before, layer.weight):
        return incorrect("one optimizer step did not move the layer")
    return correct("held as an attribute, the layer is registered: listed, moved by .to(), and trained.")


ACTIVITIES = (
    Activity(
        id="13.1",
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
        id="13.2",
        task="Write HeldNet(layer): OutsideNet's computation, with the outside layer held and registered.",
        names=("HeldNet",),
        check=_check_held_net,
        hints=(
            "nn.Module registers a module assigned as an attribute in __init__ (self.name = module).",
            "__init__(self, layer): super().__init__(), self.layer = layer, self.head = nn.Linear(4, 1); "
            "forward uses self.layer.",
        ),
        solution=(
            "class HeldNet(nn.Module):\n"
            "    def __init__(self, layer: nn.Module) -> None:\n"
            "        super().__init__()\n"
            "        self.layer = layer\n"
            "        self.head = nn.Linear(4, 1)\n"
            "\n"
            "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n"
            "        return self.head(torch.tanh(self.layer(x)))"
        ),
    ),
)
