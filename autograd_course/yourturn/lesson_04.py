"""Your-turn activities of lesson 04 · In-place operations."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import whole_number_of
from autograd_course.yourturn.choice import which_ones
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


SNIPPETS_042 = {  # each builds an output from x, then changes it in place
    "a": lambda torch, x: (x * 3).add_(1),
    "b": lambda torch, x: torch.exp(x).mul_(2),
    "c": lambda torch, x: (x**2).add_(1),
    "d": lambda torch, x: torch.tanh(x).add_(0),
    "e": lambda torch, x: torch.relu(x).mul_(2),
}


def _breaking_snippets() -> dict[str, bool]:
    """Whether each snippet's `.sum().backward()` raises, found by running it."""
    import torch

    breaks = {}
    for letter, snippet in SNIPPETS_042.items():
        x = torch.tensor([0.5, -1.0], requires_grad=True)
        try:
            snippet(torch, x).sum().backward()
        except RuntimeError:
            breaks[letter] = True
        else:
            breaks[letter] = False
    return breaks


WHY_042 = {
    "a": "multiplying by the constant 3 saves nothing of its output, so add_"
    " overwrites nothing backward reads",
    "b": "exp saves its output, its own derivative, and mul_ overwrites that saved tensor",
    "c": "x**2 saves its input x, not its output, so add_ overwrites nothing backward reads",
    "d": "tanh saves its output for 1 - tanh², and even add_(0) is a write that bumps the version",
    "e": "relu saves its output to know where it was positive, and mul_ overwrites it",
}
_check_breaks = which_ones(_breaking_snippets, "make backward raise", WHY_042)


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


def _block_reference() -> tuple:
    """(x, w0, value, w's gradient) of tanh(x @ w) with its first column dropped, computed out of place."""
    import torch

    gen = torch.Generator().manual_seed(0)
    x, w0 = torch.randn(5, 3, generator=gen), torch.randn(3, 4, generator=gen)
    w = w0.clone().requires_grad_()
    value = torch.tanh(x @ w)[:, 1:].sum()
    value.backward()
    return x, w0, value.detach(), w.grad


def _check_fixed_block(fixed_block: Any) -> tuple:
    import torch

    if not callable(fixed_block):
        return incorrect(f"expected fixed_block to be a function, got {type(fixed_block).__name__}")
    x, w0, value, grad = _block_reference()
    w = w0.clone().requires_grad_()
    out = fixed_block(x, w)
    if not isinstance(out, torch.Tensor) or out.numel() != 1:
        return incorrect(f"expected a one-element tensor, the block's sum; got {out!r}")
    try:
        out.backward()
    except RuntimeError as error:
        return incorrect(f"backward raises: {str(error).splitlines()[0][:120]}")
    if not torch.allclose(out.detach(), value, atol=1e-6):
        return incorrect(f"the block's value should stay {value.item():.4f}, got {out.item():.4f}")
    if w.grad is None or not torch.allclose(w.grad, grad, atol=1e-6):
        return incorrect(
            "backward runs, but w.grad is not the gradient of the block: autograd did not see the first"
            " column dropped"
        )
    return correct("tanh's saved output is left as it was, and the dropped column is part of the record.")


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
        task="Predict which of five out-of-place-then-in-place snippets make backward raise.",
        names=("breaks_backward",),
        check=_check_breaks,
        hints=(
            "An in-place write breaks backward only when it overwrites a value some node saved.",
            "Multiplying by a constant saves nothing of the output; x**2 saves x. Which functions save their"
            " own output for their derivative?",
            "exp, tanh and relu compute their derivative from their output: exp(x), 1 - tanh², output > 0.",
        ),
        solution='breaks_backward = {"b", "d", "e"}',
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
    Activity(
        id="04.4",
        task="Fix block(x, w), whose index assignment makes backward raise, as fixed_block(x, w).",
        names=("fixed_block",),
        check=_check_fixed_block,
        hints=(
            "Which operation saved the tensor that h[:, 0] = 0 overwrites?",
            "tanh saves its output. Write into a copy (h.clone()), or drop the column without writing:"
            " a mask, or h[:, 1:].",
        ),
        solution=(
            "def fixed_block(x, w):\n    h = torch.tanh(x @ w).clone()\n    h[:, 0] = 0\n    return h.sum()"
        ),
    ),
)
