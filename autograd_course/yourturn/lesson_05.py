"""Your-turn activities of lesson 05 · Grad modes."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _check_eval_row(eval_requires_grad: Any, eval_dropout_active: Any) -> tuple:
    given = (eval_requires_grad, eval_dropout_active)
    if not all(isinstance(v, bool) for v in given):
        return incorrect(f"expected two booleans, got {given!r}")
    if given == (True, False):
        return correct("eval() switches dropout off and leaves recording on: two independent switches.")
    seen = []
    if not eval_requires_grad:
        seen.append("you said the output does not require grad, but eval() never touches autograd")
    if eval_dropout_active:
        seen.append("you said dropout is active, but eval() is exactly what switches it off")
    return incorrect("; ".join(seen))


class _ModeProbe:
    """A tiny model that records the grad mode each forward pass ran in."""

    def __init__(self) -> None:
        import torch

        self.layer, self.modes = torch.nn.Linear(3, 1), []

    def __call__(self, batch: Any) -> Any:
        import torch

        self.modes.append(torch.is_grad_enabled())
        return self.layer(batch)


def _check_fixed_evaluate(fixed_evaluate: Any) -> tuple:
    import torch

    if not callable(fixed_evaluate):
        return incorrect(f"expected fixed_evaluate to be a function, got {type(fixed_evaluate).__name__}")
    torch.manual_seed(0)
    model, batch = _ModeProbe(), torch.randn(4, 3)
    expected = model.layer(batch).mean().item()
    for caller_mode in (True, False):
        with torch.set_grad_enabled(caller_mode):
            value = fixed_evaluate(model, batch)
            after = torch.is_grad_enabled()
        if after != caller_mode:
            return incorrect(
                f"a caller with grad mode {'on' if caller_mode else 'off'} finds it"
                f" {'on' if after else 'off'} afterwards: the helper must put back the mode it found"
            )
    if any(model.modes):
        return incorrect("the model's forward ran with grad mode on: evaluation should record nothing")
    if not isinstance(value, (int, float)) or abs(value - expected) > 1e-6:
        return incorrect(
            f"fixed_evaluate returned {value!r}, expected the mean output {expected:.4f} as a number"
        )
    return correct("nothing is recorded inside, and every caller gets back the grad mode it had.")


def _validation_setup() -> tuple:
    """A model with dropout and BatchNorm, three batches, and what validation must return for them."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 1))
    batches = [(torch.randn(6, 4), torch.randn(6, 1)) for _ in range(3)]
    model.eval()
    with torch.no_grad():
        expected = sum(((model(x) - y) ** 2).mean().item() for x, y in batches) / len(batches)
    return model, batches, expected


def _check_validate(validate: Any) -> tuple:
    import torch

    if not callable(validate):
        return incorrect(f"expected validate to be a function, got {type(validate).__name__}")
    model, batches, expected = _validation_setup()
    recorded = []
    model.register_forward_hook(lambda module, args, out: recorded.append(out.requires_grad))
    for mode in (True, False):
        model.train(mode)
        stats = model[1].running_mean.clone()
        value = validate(model, batches)
        if [m.training for m in model.modules()] != [mode] * len(list(model.modules())):
            return incorrect(
                f"a model in {'train' if mode else 'eval'} mode came back in another mode: put back the mode"
                " it had, whichever it was"
            )
        if not torch.equal(model[1].running_mean, stats):
            return incorrect("BatchNorm's running statistics moved: validation ran the model in train mode")
        if any(recorded):
            return incorrect("the forward passes were recorded: validation needs no graph")
        number = value.item() if isinstance(value, torch.Tensor) and value.numel() == 1 else value
        if not isinstance(number, (int, float)) or abs(number - expected) > 1e-5:
            return incorrect(
                f"expected the mean of the batches' losses in eval mode, {expected:.4f}; got {value!r}"
            )
    return correct("eval mode and no recording inside, and the caller gets back the mode it had.")


ACTIVITIES = (
    Activity(
        id="05.1",
        task="Fix an evaluation helper that leaves grad mode off for the training that follows.",
        names=("fixed_evaluate",),
        check=_check_fixed_evaluate,
        hints=(
            "Called as a function, torch.set_grad_enabled(False) turns recording off for all that follows.",
            "Scope the switch: with torch.no_grad(): around the forward pass.",
        ),
        solution=(
            "def fixed_evaluate(model, batch):\n"
            "    with torch.no_grad():\n"
            "        return model(batch).mean().item()"
        ),
    ),
    Activity(
        id="05.2",
        task="Predict the row for eval() with no grad context: does the output require grad, is dropout on?",
        names=("eval_requires_grad", "eval_dropout_active"),
        check=_check_eval_row,
        hints=(
            "model.eval() is a module switch; requires_grad is decided by grad mode.",
            "Grad mode is on by default; dropout is what eval() turns off.",
        ),
        solution="eval_requires_grad = True\neval_dropout_active = False",
    ),
    Activity(
        id="05.3",
        task="Write validate(model, batches): the mean validation loss, recording nothing, the model back"
        " in the mode it had.",
        names=("validate",),
        check=_check_validate,
        hints=(
            "Two switches: the module mode (eval for dropout and BatchNorm) and the grad mode (no_grad).",
            "Remember was = model.training before model.eval(), and end with model.train(was).",
        ),
        solution=(
            "def validate(model, batches):\n"
            "    was_training = model.training\n"
            "    model.eval()\n"
            "    with torch.no_grad():\n"
            "        losses = [((model(x) - y) ** 2).mean().item() for x, y in batches]\n"
            "    model.train(was_training)\n"
            "    return sum(losses) / len(losses)"
        ),
    ),
)
