"""Warnings the step raised: a loss whose input and target broadcast (torch warns, then averages
over every pair) is a finding; any other warning is said, not counted as one."""

from __future__ import annotations

from collections.abc import Sequence

from helpers.doctor.trace import StepWarning

__all__ = ["warning_lines", "warning_notes"]


def _broadcasting(w: StepWarning) -> bool:
    return "broadcast" in w.message


def warning_lines(warnings: Sequence[StepWarning]) -> tuple[list[str], list[str], str] | None:
    """(evidence, names, advice) for the broadcasting warnings the step raised; None if none."""
    seen = list(dict.fromkeys(w.message for w in warnings if _broadcasting(w)))
    if not seen:
        return None
    lines = [f"the step raised UserWarning: {message}" for message in seen]
    lines.append(
        "the loss broadcast its input against its target: it compared every prediction with every "
        "target, not each with its own, and its value and gradients are wrong"
    )
    advice = (
        "Make the prediction and the target the same shape before the loss: squeeze or unsqueeze the "
        "one that differs (output.squeeze(-1), target.unsqueeze(1)), then assert output.shape == "
        "target.shape."
    )
    return lines, ["UserWarning"], advice


def warning_notes(warnings: Sequence[StepWarning], step: int) -> list[str]:
    """One note per distinct warning that is not a finding (at most three)."""
    others = list(dict.fromkeys(f"{w.category}: {w.message}" for w in warnings if not _broadcasting(w)))
    return [f"step {step} raised {text}: not a finding" for text in others[:3]]
