"""What an error train_step raised means: evidence and advice for the BACKWARD_FAILED finding.

Known errors get precise evidence (the custom Function, the in-place module under a full
backward hook, the optimizer.step() that wrote a tensor a later backward needs); any other
error still becomes a finding that says where it was raised and what to look at.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from torch import nn

from helpers.doctor.carried import carried_graph_lines
from helpers.doctor.embedding_renorm import max_norm_lines
from helpers.doctor.findings import names_text
from helpers.doctor.raised import RaisedAt, full_backward_hooked
from helpers.doctor.steplog import OptimizerStep

__all__ = ["explain_error"]

_COUNT = re.compile(r"returned an incorrect number of gradients \(expected (\d+), got (\d+)\)")
_HOOK_VIEW = re.compile(r"of BackwardHookFunction\w* is a view and is being modified inplace")
_SHAPE = re.compile(
    r"returned an invalid gradient at index (\d+) - got \[([\d, ]*)\] but expected shape compatible with "
    r"\[([\d, ]*)\]"
)
_NOT_TENSOR = re.compile(r"'(\w+)' object has no attribute 'backward'")
_NOT_TENSOR_MEANS = {
    "float": (
        "a float is what .item(), float() or a metric returns; when a function returns several values, "
        "the one unpacked as the loss may be another of them",
        "Call backward on the loss tensor itself: check the order in which the loss function's values are "
        "unpacked (loss, *rest = ...), and keep .item() for logging only.",
    ),
    "int": (
        "an int is a constant: usually a loss started at 0 to which no tensor was added (no term in this "
        "batch: no targets, an empty loop)",
        "Start the sum from a tensor (loss = output.new_zeros(())) and skip backward and the step when no "
        "term was added, or return a zero that is connected to the output (output.sum() * 0).",
    ),
    "tuple": (
        "the loss function returned several values",
        "Backpropagate the one loss tensor among the values it returns (loss, *rest = criterion(...)), or "
        "make it return only the loss.",
    ),
    "NoneType": (
        "the loss function returned None (a missing return)",
        "Make the loss function return the loss tensor.",
    ),
}
_NOT_TENSOR_MEANS["list"] = _NOT_TENSOR_MEANS["tuple"]
_FREED = re.compile(r"backward through the graph a second time")
_VERSION = re.compile(r"\[torch\.\w+ \[([\d, ]*)\]\].*?is at version (\d+); expected version (\d+)")

_PHASE_ADVICE = {
    "forward": "Read the error beside the module it names: the shapes, dtypes and devices of the "
    "inputs that module received, and the code of its forward.",
    "backward": "The backward pass raised: look at the autograd node it names (a custom Function's "
    "backward, a tensor or module hook) and what it returns for each input.",
    "optimizer step": "optimizer.step() raised: look at the optimizer's param groups and the "
    "parameters and gradients it was given (dtypes, devices, sparse gradients).",
    "train_step": "The error is in train_step's own code, between the model, backward and "
    "optimizer.step(): read the error and the line it names.",
}


def _shape(text: str) -> tuple[int, ...]:
    return tuple(int(d) for d in text.split(",") if d.strip())


def _writers(steps: Sequence[OptimizerStep], shape: tuple[int, ...] | None) -> list[tuple[str, str]]:
    """(optimizer, parameter) pairs an optimizer.step() updated whose shape is the error's tensor's
    (or its transpose: a weight is saved transposed by linear)."""
    found = []
    for s in steps:
        for name, p_shape in s.params:
            if shape is None or p_shape == shape or p_shape[::-1] == shape:
                found.append((s.optimizer, name))
    return found


def _step_wrote(error: BaseException, steps: Sequence[OptimizerStep]) -> tuple[list[str], str] | None:
    """Evidence that an optimizer.step() earlier in the step wrote the tensor backward needs."""
    version = _VERSION.search(str(error))
    if version is None or not steps:
        return None
    shape = _shape(version.group(1))
    writers = _writers(steps, shape) or _writers(steps, None)
    names = sorted({f"{opt}.step() -> {param}" for opt, param in writers})
    shown = names_text(names, 4)
    lines = [
        f"the tensor backward needs ({list(shape)}) is at version {version.group(2)}, saved at "
        f"version {version.group(3)}: something wrote it in place between the forward and this backward",
        f"optimizer.step() ran {len(steps)} time(s) earlier in this train_step, before the backward "
        f"that failed; optimizer.step() writes every parameter it holds in place: {shown}",
    ]
    advice = (
        "An optimizer.step() updated, in place, parameters that a later backward still needs "
        "(their values were saved by the forward): call every backward that goes through them before "
        "that optimizer.step() (in a GAN: the generator's loss.backward() before opt_D.step()), or "
        "recompute the forward after the step (D(fake) again)."
    )
    return lines, advice


def _hook_inplace(error: BaseException, raised: RaisedAt, model: nn.Module) -> tuple[list[str], str] | None:
    if not _HOOK_VIEW.search(str(error)):
        return None
    hooked = full_backward_hooked(model)
    lines = [
        f"{raised.where} modified its input in place, and that input is the output of a module with "
        f"a full backward hook: {', '.join(hooked) if hooked else 'a process-wide full backward hook'} "
        "(register_full_backward_hook wraps a module's outputs in BackwardHookFunction)",
    ]
    target = f"on {raised.module!r}" if raised.module else "on the in-place module"
    advice = (
        f"A full backward hook cannot see a tensor that a later in-place module overwrites: set "
        f"inplace=False {target} (e.g. nn.ReLU(inplace=False)), or hook tensors instead "
        "(a forward hook that calls output.register_hook)."
    )
    return lines, advice


def _wrong_shape(error: BaseException, raised: RaisedAt) -> tuple[list[str], str] | None:
    """Evidence that a backward returned a gradient whose shape is not its input's."""
    found = _SHAPE.search(str(error))
    if found is None:
        return None
    index, got, expected = int(found.group(1)), _shape(found.group(2)), _shape(found.group(3))
    node = raised.node or "a node"
    who = f"custom Function {raised.function}" if raised.function else f"autograd node {node}"
    differ = [
        f"dimension {d}: {g} instead of {e}" for d, (g, e) in enumerate(zip(got, expected)) if g != e
    ] or [f"{len(got)} dimensions instead of {len(expected)}"]
    lines = [
        f"{who}'s backward returned, for input {index} of its forward, a gradient of shape {list(got)}; "
        f"that input has shape {list(expected)} ({', '.join(differ)}): each gradient backward returns "
        "must have its input's shape (or a shape that input broadcasts to, which autograd sums back)",
    ]
    advice = (
        f"Make {raised.function or node}.backward return, for input {index}, a gradient of that "
        "input's shape: compare its indexing, cropping, padding and sums with the forward's; "
        "torch.autograd.gradcheck on small float64 inputs compares the whole backward with numeric gradients."
    )
    return lines, advice


def _not_a_tensor(error: BaseException) -> tuple[list[str], str] | None:
    """Evidence that backward() was called on a Python value, not on a tensor."""
    found = _NOT_TENSOR.search(str(error)) if isinstance(error, AttributeError) else None
    if found is None:
        return None
    kind = found.group(1)
    means, advice = _NOT_TENSOR_MEANS.get(
        kind, (f"a {kind} has no graph", "Call backward on the loss tensor the forward computed.")
    )
    lines = [
        f"backward() was called on a Python {kind}, not a tensor: {means}; only a tensor computed from the "
        "parameters (its grad_fn set) can be backpropagated (check: type(loss), loss.grad_fn)"
    ]
    return lines, advice


def _wrong_count(error: BaseException, raised: RaisedAt) -> tuple[list[str], str] | None:
    count = _COUNT.search(str(error))
    if count is None:
        return None
    expected, got = count.groups()
    who = f"custom Function {raised.function}" if raised.function else f"autograd node {raised.node}"
    lines = [
        f"{who}'s backward returned {got} gradient(s); its forward took {expected} input(s): backward "
        "returns exactly one value per forward input"
    ]
    advice = (
        f"Make {raised.function or raised.node}.backward return one gradient per input of forward, "
        "in order, with None for inputs that need none (non-tensors, or tensors that do not require grad)."
    )
    return lines, advice


def explain_error(
    error: BaseException,
    raised: RaisedAt | None,
    known: str | None,
    model: nn.Module,
    steps: Sequence[OptimizerStep],
    carried: Sequence[tuple[str, str]] = (),
) -> tuple[list[str], str | None]:
    """(evidence lines, advice) for an error train_step raised. `known`: autograd_error_kind's answer;
    `carried`: (attribute, grad_fn) of the tensors with a grad_fn the model held before this step.
    The advice is None for a known autograd error nothing more specific explains: the checklist's own."""
    text = f"train_step raised {type(error).__name__}: {error}"
    where: list[str] = []
    if raised is not None:
        where = (
            [f"raised in the {raised.phase}: {raised.where}"]
            if raised.phase != "train_step"
            else [f"raised in {raised.where}"]
        )
    found: Any = None
    if raised is not None:
        found = (
            _wrong_count(error, raised) or _wrong_shape(error, raised) or _hook_inplace(error, raised, model)
        )
    found = found or _step_wrote(error, steps) or _not_a_tensor(error) or max_norm_lines(error, model)
    if found is None and carried and _FREED.search(str(error)):
        found = carried_graph_lines(list(carried))
    if found is not None:
        lines, advice = found
        return [text, *where, *lines], advice
    if known is not None:
        return [text, *where], None
    phase = raised.phase if raised is not None else "train_step"
    return [text, *where, "diagnose does not know this error: it is shown as raised"], _PHASE_ADVICE[phase]
