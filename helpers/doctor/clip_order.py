"""Gradient clipping that clips nothing the optimizer uses: called after optimizer.step() (the update
already used the unclipped gradients; the next zero_grad() drops the clipped ones), before backward()
(right after zero_grad(): the gradients are None or zero, backward then writes unclipped ones), or
given no parameter at all (a parameters() generator already consumed)."""

from __future__ import annotations

from collections.abc import Sequence

from helpers.doctor.trace import ClipCall

__all__ = ["clip_lines"]


def _held(call: ClipCall) -> str:
    if not call.with_grad:
        return "none held a .grad (None, as zero_grad() leaves it)"
    return f"{call.with_grad} held a .grad, every one all zero"


def _norm_note(call: ClipCall) -> str:
    return " (the norm it returned is 0)" if call.function == "clip_grad_norm_" else ""


def _before_backward(clips: Sequence[ClipCall], order: Sequence[str]) -> list[ClipCall]:
    """Clip calls that found no non-zero gradient before the step's backward, when that backward's
    gradients then reached an optimizer.step() that no clip call after a backward bounded. Gradients
    left from earlier calls (accumulation), or a clip also placed right, are no finding."""
    if any(c.received and not c.before_backward and not c.after_step for c in clips):
        return []
    return [
        c for c in clips if c.before_backward and c.received and not c.nonzero and _then_steps(order[c.at :])
    ]


def _then_steps(later: Sequence[str]) -> bool:
    """Whether a backward() ran, then an optimizer.step()."""
    return "backward" in later and "step" in later[list(later).index("backward") :]


def clip_lines(
    clips: Sequence[ClipCall], order: Sequence[str] = ()
) -> tuple[list[str], list[str], str, str] | None:
    """(evidence, names, advice, summary) for clip calls that clip nothing the step's update uses; None
    if none."""
    after = [c for c in clips if c.after_step]
    empty = [c for c in clips if not c.after_step and c.received == 0]
    early = _before_backward(clips, order)
    if not (after or empty or early):
        return None
    lines = [
        f"torch.nn.utils.{c.function} ran after optimizer.step(), with no backward in between: the update "
        f"had already used the unclipped gradients, and the next zero_grad() drops the clipped ones "
        f"({c.where})"
        for c in after
    ]
    lines += [
        f"torch.nn.utils.{c.function} ran before backward() in this step: of the {c.received} parameters "
        f"it received, {_held(c)}, so it clipped nothing{_norm_note(c)}; backward then wrote gradients "
        f"that reached optimizer.step() unclipped ({c.where})"
        for c in early
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
    summary = "a gradient clipping call clipped nothing that optimizer.step() used"
    return lines, [c.function for c in after + early + empty], advice, summary
