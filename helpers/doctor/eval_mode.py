"""Modules left in eval mode during a training step: dropout off, BatchNorm normalising with (and no
longer updating) its running statistics, while the step trains the parameters around them."""

from __future__ import annotations

from collections.abc import Iterable

from torch import nn

from helpers.doctor.findings import names_text
from helpers.doctor.intended import how_to_mark, is_intended

__all__ = ["eval_lines"]


def _trains_around(model: nn.Module, name: str, trainable: set[str]) -> bool:
    """Whether the step trains this module's own parameters or, for one without (dropout), its
    parent's: a frozen backbone's BatchNorm and dropout in eval mode are not a finding."""
    if name == "the model":
        return bool(trainable)
    own = next(model.get_submodule(name).parameters(recurse=False), None) is not None
    scope = name if own else name.rpartition(".")[0]
    return any(p.startswith(scope + ".") for p in trainable) if scope else bool(trainable)


def _effects(kinds: Iterable[str]) -> str:
    """What eval mode changes in the modules that ran in it, by kind, so the sentence holds for the step."""
    kinds = list(kinds)
    said = [
        effect
        for key, effect in (
            ("Dropout", "dropout drops nothing"),
            ("BatchNorm", "BatchNorm normalises with its running statistics, which it no longer updates"),
            ("InstanceNorm", "InstanceNorm uses its running statistics"),
            ("RReLU", "RReLU uses a fixed slope"),
        )
        if any(key in k for k in kinds)
    ]
    return "; ".join(said) or "they compute what they compute at inference"


def _why(model: nn.Module) -> str:
    """Where eval mode came from: the model's own flag, or modules switched on their own."""
    if not model.training:
        return (
            "the model's own training flag is False: a model.eval() (a validation run) was not followed by "
            "model.train()"
        )
    return "the model's own training flag is True: these modules were put in eval mode on their own"


def eval_lines(
    ran: dict[str, str], model: nn.Module, trainable: Iterable[str], intended: Iterable[str]
) -> tuple[list[str], list[str], str, str] | None:
    """(evidence, names, advice, summary) for mode-dependent modules that ran in eval mode in a training
    step."""
    trainable = set(trainable)
    names = [n for n in ran if not is_intended(n, intended) and _trains_around(model, n, trainable)]
    if not names:
        return None
    shown = names_text([f"{n} ({ran[n]})" for n in names])
    lines = [
        f"grad mode was on, but {shown} ran in eval mode (module.training is False) during this training "
        f"step: {_effects(ran[n] for n in names)}",
        _why(model),
    ]
    advice = (
        "Call model.train() at the start of every training step (or after each validation run), and "
        f"model.eval() only around validation; {how_to_mark(names)} (BatchNorm frozen on purpose)."
    )
    summary = "modules ran in eval mode (module.training is False) during a training step; grad mode was on"
    return lines, names, advice, summary
