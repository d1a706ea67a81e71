"""Your-turn activities of lesson 02 · Gradient accumulation."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import number_of
from autograd_course.yourturn.choice import one_reason
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _check_prediction(predicted_grad_after_5: Any) -> tuple:
    given, predicted_grad_after_5 = predicted_grad_after_5, number_of(predicted_grad_after_5)
    if predicted_grad_after_5 is None:
        return incorrect(f"expected a number, got {type(given).__name__}")
    if abs(predicted_grad_after_5 - 15.0) < 1e-6:
        return correct("each call adds 3x² = 3, and nothing clears .grad: 5 × 3 = 15.")
    if abs(predicted_grad_after_5 - 3.0) < 1e-6:
        return incorrect("you gave 3.0, one call's gradient; backward() adds to .grad, it does not set it")
    return incorrect(f"you gave {predicted_grad_after_5}; each call adds d(x³)/dx at x = 1 to x.grad")


class _Recorder:
    """An SGD with learning rate 0 that records the gradient each step() applies (parameters never move)."""

    def __init__(self, params: Any) -> None:
        import torch

        self.optimizer = torch.optim.SGD(params, lr=0.0)
        self.applied: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.optimizer, name)

    def zero_grad(self, set_to_none: bool = True) -> None:
        self.optimizer.zero_grad(set_to_none=set_to_none)

    def step(self, closure: Any = None) -> Any:
        grads = [p.grad for group in self.optimizer.param_groups for p in group["params"]]
        self.applied.append([None if g is None else g.clone() for g in grads])
        return self.optimizer.step(closure)


def _full_batch_grad(model: Any, inputs: Any, targets: Any) -> Any:
    import torch

    probe = torch.nn.Linear(3, 1)
    probe.load_state_dict(model.state_dict())
    ((probe(inputs) - targets) ** 2).mean().backward()
    return probe.weight.grad


_check_reset_each_chunk = one_reason(
    "b",
    {
        "a": "that is what the loop meant, but it is not what it does: follow .grad through the four"
        " iterations and ask what each zero_grad() finds there",
        "b": "zero_grad before each chunk erases the three before it; step() sees only the last chunk's"
        " gradient, scaled by the 1/4 meant for a sum of four",
        "c": "a sum needs .grad to accumulate across the four backward calls; zero_grad runs before each one",
        "d": "zero_grad runs before the last backward, not between it and step(): .grad holds the last chunk",
    },
)


def _check_micro_batches(fixed_micro_step: Any) -> tuple:
    import torch

    if not callable(fixed_micro_step):
        return incorrect(f"expected fixed_micro_step to be a function, got {type(fixed_micro_step).__name__}")
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    optimizer = _Recorder(model.parameters())
    inputs, targets = torch.randn(8, 3), torch.randn(8, 1)
    full = _full_batch_grad(model, inputs, targets)
    last_part = _full_batch_grad(model, inputs[6:], targets[6:]) / 4
    fixed_micro_step(model, optimizer, inputs, targets)
    fixed_micro_step(model, optimizer, inputs, targets)
    if len(optimizer.applied) != 2:
        return incorrect(
            f"two calls called optimizer.step() {len(optimizer.applied)} times: step once per call,"
            " after every micro-batch's backward()"
        )
    (first, *_), (second, *_) = optimizer.applied
    if first is None or not first.any():
        return incorrect("optimizer.step() saw no gradient: zero_grad() ran after the last backward()")
    if torch.allclose(first, last_part):
        return incorrect(
            "step() applied only the last micro-batch's gradient: zero_grad() in the loop wipes the rest"
        )
    if torch.allclose(first, 4 * full):
        return incorrect(
            "step() applied four times the full batch's gradient: keep each part's loss / chunks"
        )
    if not torch.allclose(first, full, atol=1e-6):
        return incorrect("the gradient step() applied is not the full batch's gradient")
    if not torch.allclose(second, first, atol=1e-6):
        return incorrect(
            "the second call applied a different gradient: the first call's gradient carried over"
        )
    return correct(
        "one step per batch, with exactly the full batch's gradient: zero once, accumulate the parts."
    )


ACTIVITIES = (
    Activity(
        id="02.1",
        task="Predict x.grad after five calls of (x ** 3).backward() at x = 1 with no zeroing.",
        names=("predicted_grad_after_5",),
        check=_check_prediction,
        hints=("backward() adds into .grad.", "One call adds 3x² = 3 at x = 1; count the calls."),
        solution="predicted_grad_after_5 = 15.0",
    ),
    Activity(
        id="02.2",
        task="Predict which gradient step() uses when zero_grad runs inside a micro-batch loop.",
        names=("step_sees",),
        check=_check_reset_each_chunk,
        hints=(
            "Follow .grad through the four iterations: what does zero_grad leave, what does backward add?",
            "At i = 3, what ran between the last zero_grad and step()?",
        ),
        solution='step_sees = "b"',
    ),
    Activity(
        id="02.3",
        task="Fix a micro-batch step so that each call applies exactly the full batch's gradient.",
        names=("fixed_micro_step",),
        check=_check_micro_batches,
        hints=(
            "The micro-batches' gradients must add up in .grad before step(); what wipes them?",
            "Zero once per batch, before the loop (or after step()), never inside it.",
        ),
        solution=(
            "def fixed_micro_step(model, optimizer, inputs, targets, chunks=4):\n"
            "    optimizer.zero_grad()\n"
            "    for x_part, y_part in zip(inputs.chunk(chunks), targets.chunk(chunks)):\n"
            "        loss = ((model(x_part) - y_part) ** 2).mean() / chunks\n"
            "        loss.backward()\n"
            "    optimizer.step()"
        ),
    ),
)
