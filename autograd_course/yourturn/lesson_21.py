"""Your-turn activities of lesson 21 · Graph hooks."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import number_of
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]

LIMIT = 0.5  # the clip the check asks of clip_incoming


def _predicted_node_hooks() -> float:
    """x.grad when a node prehook doubles, then a node hook adds 1, on y = exp(x) at 0, z = 3y."""
    import torch

    x = torch.tensor([0.0], requires_grad=True)
    y = x.exp()
    y.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 2,))
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0] + 1,))
    (3 * y).sum().backward()
    return x.grad.item()


def _check_predicted_x_grad(predicted_x_grad: Any) -> tuple:
    given = number_of(predicted_x_grad)
    if given is None:
        return incorrect(f"expected a number such as 10.0, got {type(predicted_x_grad).__name__}")
    actual = _predicted_node_hooks()  # run, so the verdict is what autograd does on this torch
    if abs(given - actual) < 1e-6:
        return correct(
            "dz/dy = 3; the prehook doubles it to 6 before ExpBackward0 runs; exp(0) = 1 keeps 6; the hook"
            " adds 1 to the node's result: 7."
        )
    known = {
        3.0: "the gradient with neither hook, yet both return tuples that replace what they got",
        6.0: "the prehook's edit is in, but the hook's return value also replaces the node's result",
        4.0: "the hook's +1 is in, but the prehook changed the gradient before the node computed",
        8.0: "that adds 1 before doubling; the prehook runs before the node, the hook after it",
    }
    for value, why in known.items():
        if abs(given - value) < 1e-6:
            return incorrect(f"you gave {given:g}, {why}")
    return incorrect(f"you gave {given:g}; follow dz/dy = 3 through the prehook, ExpBackward0, then the hook")


def _encoder(seed: int) -> Any:
    """A VAE-style encoder: one linear layer, two outputs (mean, log-variance)."""
    import torch
    from torch import nn

    class Encoder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(3, 4)

        def forward(self, x):
            h = self.fc(x)
            return h[:, :2], h[:, 2:]

    torch.manual_seed(seed)
    return Encoder()


def _step(encoder: Any, both: bool, clip: float | None) -> list:
    """One loss through the encoder (mean only unless both), and the gradients of its weight, bias, input.

    With clip, the gradient arriving at each output is clamped by hand: what a correct hook must give.
    """
    import torch

    gen = torch.Generator().manual_seed(7)
    x = torch.randn(5, 3, generator=gen).requires_grad_()
    scales = 3 * torch.randn(5, 2, generator=gen), 3 * torch.randn(5, 2, generator=gen)
    outputs = encoder(x)[: 2 if both else 1]
    arriving = [s if clip is None else s.clamp(-clip, clip) for s in scales[: len(outputs)]]
    if clip is None:
        sum((out * s).sum() for out, s in zip(outputs, arriving)).backward()
        grads = [encoder.fc.weight.grad, encoder.fc.bias.grad, x.grad]
        encoder.zero_grad()
        return grads
    return list(torch.autograd.grad(outputs, [encoder.fc.weight, encoder.fc.bias, x], arriving))


def _same(got: list, expected: list) -> bool:
    import torch

    return all(g is not None and torch.allclose(g, e, atol=1e-6) for g, e in zip(got, expected))


def _judge_clip_step(encoder: Any, both: bool) -> str | None:
    """What is wrong with the hooked encoder's gradients on one step, or None when they are right."""
    got = _step(encoder, both, None)
    if _same(got, _step(_encoder(21), both, LIMIT)):
        return None
    which = "a step that uses both outputs" if both else "a step that uses only the mean"
    if _same(got, _step(_encoder(21), both, None)):
        return f"on {which} the gradients are unclipped: nothing edited the gradient arriving at the module"
    return (
        f"on {which} the gradients behind the module differ from those of an incoming gradient clamped to"
        f" [-{LIMIT}, {LIMIT}]: clip what arrives at the outputs, not what the module computes from it"
    )


def _check_clip_incoming(clip_incoming: Any) -> tuple:
    if not callable(clip_incoming):
        return incorrect(f"expected a function of (module, limit), got {type(clip_incoming).__name__}")
    encoder = _encoder(21)
    handle = clip_incoming(encoder, LIMIT)
    if not hasattr(handle, "remove"):
        return incorrect(f"return the handle the register call gives, got {handle!r}")
    for both in (True, False):
        try:
            wrong = _judge_clip_step(encoder, both)
        except Exception as exc:  # the learner's hook raised inside backward
            which = "both outputs" if both else "only the mean"
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            return incorrect(f"backward on a loss of {which} raised {type(exc).__name__}: {first}")
        if wrong:
            return incorrect(wrong)
    handle.remove()
    if not _same(_step(encoder, True, None), _step(_encoder(21), True, None)):
        return incorrect(
            "after handle.remove() the gradients are still clipped: return the hook's own handle"
        )
    return correct(
        "a full backward pre-hook edits grad_output before the module's backward: clamp each entry and keep"
        " None for an output the loss did not use."
    )


def _swish(seed: int) -> Any:
    """x · sigmoid(beta · x): several operations, and the input used twice."""
    import torch
    from torch import nn

    class Swish(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.beta = nn.Parameter(torch.tensor(1.5))

        def forward(self, x):
            return x * torch.sigmoid(self.beta * x)

    torch.manual_seed(seed)
    return Swish()


def _swish_pass(module: Any, seed: int) -> tuple[Any, list[str]]:
    """One backward pass on a fresh input; the gradient autograd gives that input, and any warnings."""
    import warnings

    import torch

    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(4, 3, generator=gen).requires_grad_()
    scale = torch.randn(4, 3, generator=gen)
    (expected,) = torch.autograd.grad(_swish(0)(x).mul(scale).sum(), x)  # first: before any hook on x
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = module(x)
    (out * scale).sum().backward()
    return expected, [str(w.message).split(".")[0] for w in caught]


def _judge_input_grads(store: list, expected: list, warned: list) -> str | None:
    """What is wrong with what the learner's hook stored over the passes, or None when it is right."""
    import torch

    if warned:
        return f"the forward pass warned: {warned[0]}"
    if len(store) != len(expected):
        return f"after {len(expected)} backward passes, store holds {len(store)} entries; one per pass"
    if not all(isinstance(t, torch.Tensor) for t in store):
        kinds = sorted({type(t).__name__ for t in store})
        return f"store holds {', '.join(kinds)}; append the gradient itself, one tensor"
    if not all(t.shape == e.shape and torch.allclose(t, e, atol=1e-6) for t, e in zip(store, expected)):
        return "the stored tensors are not the gradient of the loss with respect to the module's input"
    return None


def _check_watch_input_grad(watch_input_grad: Any) -> tuple:
    if not callable(watch_input_grad):
        return incorrect(f"expected a function of (module, store), got {type(watch_input_grad).__name__}")
    module, store = _swish(0), []
    handle = watch_input_grad(module, store)
    if not hasattr(handle, "remove"):
        return incorrect(f"return the handle the register call gives, got {handle!r}")
    expected, warned = [], []
    for seed in (1, 2):
        grad, warnings_seen = _swish_pass(module, seed)
        expected.append(grad)
        warned += warnings_seen
    wrong = _judge_input_grads(store, expected, warned)
    if wrong:
        return incorrect(wrong)
    handle.remove()
    _swish_pass(module, 3)
    if len(store) != 2:
        return incorrect("after handle.remove() a backward pass still adds to store")
    return correct(
        "the full backward hook's grad_input is the gradient with respect to the module's input, both uses"
        " of x summed; the deprecated hook would have seen only the last product's share."
    )


ACTIVITIES = (
    Activity(
        id="21.1",
        task="Predict x.grad when a node prehook doubles and a node hook adds 1, on y = exp(x) at 0, z = 3y.",
        names=("predicted_x_grad",),
        check=_check_predicted_x_grad,
        hints=(
            "Start with the gradient arriving at y: dz/dy = 3.",
            "The prehook runs before ExpBackward0 multiplies by exp(x); the hook runs after, on its result.",
        ),
        solution="predicted_x_grad = 7.0",
    ),
    Activity(
        id="21.2",
        task="Write clip_incoming(module, limit): a hook that clamps every gradient arriving at the module's"
        " outputs, on an encoder with two outputs; return the handle.",
        names=("clip_incoming",),
        check=_check_clip_incoming,
        hints=(
            "The hook that sees, and may replace, the gradients arriving at a module's outputs is"
            " register_full_backward_pre_hook.",
            "It gets a tuple with one entry per output and must return a tuple of the same length.",
            "When a loss uses only one output, the other output's entry is None.",
        ),
        solution=(
            "def clip_incoming(module, limit):\n"
            "    def clip(module, grad_output):\n"
            "        return tuple(None if g is None else g.clamp(-limit, limit) for g in grad_output)\n"
            "\n"
            "    return module.register_full_backward_pre_hook(clip)"
        ),
    ),
    Activity(
        id="21.3",
        task="Write watch_input_grad(module, store): each backward pass appends the gradient with respect to"
        " the module's input to store; return the handle.",
        names=("watch_input_grad",),
        check=_check_watch_input_grad,
        hints=(
            "grad_input of which module hook is the gradient with respect to the module's own input, however"
            " many operations its forward runs?",
            "register_full_backward_hook(fn) calls fn(module, grad_input, grad_output); grad_input is a tuple"
            " with one entry per input.",
        ),
        solution=(
            "def watch_input_grad(module, store):\n"
            "    def keep(module, grad_input, grad_output):\n"
            "        store.append(grad_input[0])\n"
            "\n"
            "    return module.register_full_backward_hook(keep)"
        ),
    ),
)
