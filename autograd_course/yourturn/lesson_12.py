"""Your-turn activities of lesson 12 · The autograd doctor."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import member_name
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


def _check_fixed_list_net(FixedListNet: Any) -> tuple:
    import torch
    from torch import nn

    if not (isinstance(FixedListNet, type) and issubclass(FixedListNet, nn.Module)):
        return incorrect(f"expected FixedListNet to be an nn.Module class, got {FixedListNet!r}")
    model = FixedListNet()
    shapes = sorted(tuple(p.shape) for p in model.parameters())
    if shapes == [(1,), (1, 4)]:
        return incorrect("model.parameters() still lists only the head: a plain list is not registered")
    if shapes != [(1,), (1, 4), (4,), (4,), (4, 4), (4, 4)]:
        return incorrect(
            f"expected the two 4x4 blocks and the head, model.parameters() lists shapes {shapes}"
        )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    before = [p.detach().clone() for p in model.parameters()]
    model(torch.randn(8, 4)).pow(2).mean().backward()
    optimizer.step()
    unchanged = sum(torch.equal(b, p) for b, p in zip(before, model.parameters()))
    if unchanged:
        return incorrect(
            f"{unchanged} parameter tensors did not move after one step: is every block used in forward?"
        )
    return correct("nn.ModuleList registers the blocks: listed, moved by .to(), saved, and trained.")


ACTIVITIES = (
    Activity(
        id="12.1",
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
        id="12.2",
        task="Write FixedListNet: ListNet with its blocks registered.",
        names=("FixedListNet",),
        check=_check_fixed_list_net,
        hints=(
            "nn.Module registers modules assigned as attributes, and containers made for modules.",
            "nn.ModuleList([...]) is the list that registers what it holds.",
        ),
        solution=(
            "class FixedListNet(ListNet):\n"
            "    def __init__(self) -> None:\n"
            "        super().__init__()\n"
            "        self.blocks = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4)])"
        ),
    ),
)
