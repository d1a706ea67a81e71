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


def _log_step(safe_log: Any) -> tuple:
    """(train_step, model, optimizer) for a net whose hidden layer goes through safe_log."""
    import torch
    from torch import nn

    from helpers import make_tiny_problem

    class LogLayer(nn.Module):
        def forward(self, h: torch.Tensor) -> torch.Tensor:
            return safe_log(h)

    torch.manual_seed(0)
    x, y = make_tiny_problem(seed=0)
    model = nn.Sequential(nn.Linear(4, 8), LogLayer(), nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def train_step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        return loss

    return train_step, model, optimizer


def _check_safe_log(safe_log: Any) -> tuple:
    import torch

    from helpers import diagnose

    if not callable(safe_log):
        return incorrect(f"expected a function (or module) of one tensor, got {safe_log!r}")
    h = torch.tensor([2.0, 0.5, 0.0, -1.0, -3.0, 1e-3], dtype=torch.float64, requires_grad=True)
    out = safe_log(h)
    positive = h.detach() > 0
    wanted = torch.where(positive, h.detach().clamp(min=1e-300).log(), torch.zeros_like(h))
    if not (isinstance(out, torch.Tensor) and out.shape == h.shape and torch.allclose(out, wanted)):
        return incorrect("the values are not log(h) where h > 0 and 0 elsewhere (h = 0 included)")
    out.sum().backward()
    if h.grad is None or not torch.isfinite(h.grad).all():
        where = [] if h.grad is None else h.detach()[~torch.isfinite(h.grad)].tolist()
        return incorrect(f"the values are right, but the gradient is not finite at h = {where}")
    if not torch.allclose(h.grad, torch.where(positive, 1 / h.detach(), torch.zeros_like(h))):
        return incorrect("the gradient should be 1/h where h > 0 and 0 where the output is the constant 0")
    diagnosis = diagnose(*_log_step(safe_log))
    if not diagnosis.ok:
        return incorrect(f"in a training step, diagnose says {diagnosis.stage.name}")
    return correct(
        "finite values, the gradient 1/h where log is used and 0 elsewhere, and diagnose says OK: no branch"
        " ever takes the log of a number that is not positive."
    )


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
        task="Write safe_log: log(h) where h > 0, 0 elsewhere, with a gradient that is finite everywhere.",
        names=("safe_log",),
        check=_check_safe_log,
        hints=(
            "torch.where(h > 0, torch.log(h), 0) has the right values; run its backward on h = 0 and h = -1.",
            "As with SafeSqrt: make the input of log safe, not only its output.",
            "Give log a positive number in every entry (clamp, or where(h > 0, h, 1)), then pick 0 where"
            " h <= 0.",
        ),
        solution=(
            "def safe_log(h):\n"
            "    positive = h > 0\n"
            "    return torch.where(positive, torch.log(torch.where(positive, h, torch.ones_like(h))), 0.0)"
        ),
    ),
    Activity(
        id="14.3",
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
