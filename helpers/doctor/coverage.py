"""What an OK diagnosis checked, and what it could not check: each checklist entry's evidence (and
the checks of what the step computes, computed.CHECKED), and the checks that had nothing to read in
this step, each with the reason, so that OK never passes a check silently."""

from __future__ import annotations

from typing import Any

import torch

from helpers.doctor.computed import CHECKED

__all__ = ["coverage"]


def _not_run(f: Any) -> list[str]:
    """The checks that had nothing to read in this step, with why."""
    ev, trace = f.ev, f.ev.trace
    missing = []
    if not (isinstance(ev.loss, torch.Tensor) and ev.loss.grad_fn is not None):
        missing.append(
            "the loss's graph (terms without a gradient, leaves outside the model no optimizer holds): "
            "train_step returned no loss tensor with a grad_fn (return the loss first)"
        )
    if trace is not None and not trace.losses.calls:
        missing.append(
            "targets that require grad and probabilities fed to a logits loss: the step called no loss "
            "function of torch.nn.functional (nn.MSELoss, nn.CrossEntropyLoss, ... call them)"
        )
    if trace is not None and "backward" not in trace.order:
        missing.append(
            "the order of clip calls and optimizer.step(): no torch.autograd.backward call was seen"
        )
    if trace is not None and not trace.clips:
        missing.append(
            "what clip calls received: the step made no clip call through torch.nn.utils (a clip function "
            "imported by name before diagnose is not seen)"
        )
    return missing


def coverage(f: Any, checklist: Any) -> tuple[list[str], list[str]]:
    """(what was checked, what could not be) for the step's facts `f` and the checklist."""
    checked = []
    for entry in checklist:
        extra = CHECKED.get(entry.stage.name)
        checked.append(f"{entry.stage.name}: {entry.evidence}" + (f"; {extra}" if extra else ""))
    return checked, _not_run(f)
