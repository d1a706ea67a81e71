"""Your-turn activities of lesson 04 · In-place operations."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import graph_leaves, overwritten_saved_value, whole_number_of
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _check_version(predicted_version: Any) -> tuple:
    version = whole_number_of(predicted_version)
    if version is None:
        return incorrect(
            f"expected a whole number, got {type(predicted_version).__name__} {predicted_version!r}"
        )
    if version == 3:
        return correct("mul_, the indexed write and the detached view's add_ each count once: version 3.")
    if version == 2:
        return incorrect("you gave 2; a detached tensor shares the counter of the tensor it looks at")
    return incorrect(f"you gave {version}; count the in-place writes to y's memory")


def _check_fixed_out(fixed_out: Any) -> tuple:
    import torch

    if not isinstance(fixed_out, torch.Tensor):
        return incorrect(f"expected fixed_out to be a tensor, got {type(fixed_out).__name__}")
    expected = 2 * torch.sigmoid(3 * torch.tensor([0.5, -1.0]))
    if fixed_out.shape != expected.shape or not torch.allclose(fixed_out.detach().cpu(), expected):
        return incorrect(
            f"fixed_out holds {fixed_out.tolist()}, expected 2 * sigmoid(3x) = {expected.tolist()}"
        )
    leaves = graph_leaves(fixed_out)
    if not leaves:
        return incorrect("fixed_out is not recorded: backward would not reach x")
    overwritten = overwritten_saved_value(fixed_out)  # reads the record; runs no backward on yours
    if overwritten is not None:
        return incorrect(f"backward would raise: {overwritten[:120]}")
    return correct("the doubling makes a new tensor; sigmoid's saved output is untouched, so backward runs.")


LARGEST_SAVED = (
    128,
    512,
)  # the Sigmoid's output: saved by Sigmoid (its output) and the last Linear (its input)
WEIGHTS = {(64, 16), (16, 64), (512, 64), (64, 512), (4, 512), (512, 4)}


def _check_largest(largest_saved: Any) -> tuple:
    import torch

    if not isinstance(largest_saved, (tuple, list, torch.Size)) or not all(
        isinstance(n, int) and not isinstance(n, bool) for n in largest_saved
    ):
        return incorrect(f"expected a shape such as (128, 16), got {largest_saved!r}")
    shape = tuple(largest_saved)
    if shape == LARGEST_SAVED:
        return correct(
            "the Sigmoid's output, 128 × 512: Sigmoid saves it for its own backward and the last Linear"
            " saves it as its input, one tensor kept alive until backward."
        )
    if shape in WEIGHTS:
        return incorrect(f"{shape} is a weight's shape; parameters are alive anyway, leave them out")
    if shape == (128, 4):
        return incorrect(
            "(128, 4) is the output; the loss keeps only that small tensor, look inside the model"
        )
    return incorrect(
        f"you gave {shape}; measure it: saved_for_backward(probe, lambda: probe(torch.randn(128, 16)).sum())"
    )


ACTIVITIES = (
    Activity(
        id="04.1",
        task="Predict y._version after mul_, an indexed write and an add_ through y.detach().",
        names=("predicted_version",),
        check=_check_version,
        hints=(
            "Every in-place write to y's memory adds one, whatever name it goes through.",
            "y.detach() is a view of the same memory with the same counter.",
        ),
        solution="predicted_version = 3",
    ),
    Activity(
        id="04.2",
        task="Find the bug: sigmoid saves its output, which mul_ then overwrites. Write fixed_out.",
        names=("fixed_out",),
        check=_check_fixed_out,
        hints=(
            "Which tensor did sigmoid save for its backward?",
            "Double it out of place: fixed_out = torch.sigmoid(h) * 2.",
        ),
        solution=(
            "x = torch.tensor([0.5, -1.0], device=device, requires_grad=True)\n"
            "h = x * 3\n"
            "fixed_out = torch.sigmoid(h) * 2"
        ),
    ),
    Activity(
        id="04.3",
        task="Give the shape of the largest non-parameter tensor a new model's forward saves for backward.",
        names=("largest_saved",),
        check=_check_largest,
        hints=(
            "Activations are saved, one per layer that needs them; the widest activation is the largest.",
            "Sigmoid saves its output, and the Linear after it saves that same tensor as its input.",
        ),
        solution=(
            "probe = nn.Sequential(\n"
            "    nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 512), nn.Sigmoid(), nn.Linear(512, 4)\n"
            ")\n"
            "_, saved = saved_for_backward(probe, lambda: probe(torch.randn(128, 16)).sum())\n"
            "largest_saved = saved[0][0]"
        ),
    ),
)
