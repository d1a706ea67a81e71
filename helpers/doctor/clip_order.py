"""Gradient clipping that clips nothing the optimizer uses: called after optimizer.step() (the update
already used the unclipped gradients; the next zero_grad() drops the clipped ones), or given no
parameter at all (a parameters() generator already consumed)."""

from __future__ import annotations

from collections.abc import Sequence

from helpers.doctor.trace import ClipCall

__all__ = ["clip_lines"]


def clip_lines(clips: Sequence[ClipCall]) -> tuple[list[str], list[str], str] | None:
    """(evidence, names, advice) for clip calls that clip nothing the step's update uses; None if none."""
    after = [c for c in clips if c.after_step]
    empty = [c for c in clips if not c.after_step and c.received == 0]
    if not (after or empty):
        return None
    lines = [
        f"torch.nn.utils.{c.function} ran after optimizer.step(), with no backward in between: the update "
        f"had already used the unclipped gradients, and the next zero_grad() drops the clipped ones "
        f"({c.where})"
        for c in after
    ]
    lines += [
        f"torch.nn.utils.{c.function} received no parameter (an empty list, or a parameters() generator "
        f"already consumed by an earlier loop): it clipped nothing ({c.where})"
        for c in empty
    ]
    advice = (
        "Clip between loss.backward() and optimizer.step(), and pass a list, not a generator another loop "
        "consumed: params = list(model.parameters()); clip_grad_norm_(params, max_norm), then "
        "optimizer.step()."
    )
    return lines, [c.function for c in after + empty], advice
