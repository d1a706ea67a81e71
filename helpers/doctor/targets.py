"""Loss inputs on the target side that require grad (a bootstrapped TD target computed by the same
network, or by a target network, without detach), and probabilities fed to a loss that expects logits
(a sigmoid or softmax applied before binary_cross_entropy_with_logits or cross_entropy)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from helpers.doctor.intended import how_to_mark, is_intended
from helpers.doctor.loss_calls import LossCall

__all__ = ["logits_lines", "target_lines"]

_PROBABILITIES = {
    "binary_cross_entropy_with_logits": ("SigmoidBackward0", "Sigmoid"),
    "cross_entropy": ("SoftmaxBackward0", "Softmax"),
}


def target_lines(
    calls: Sequence[LossCall], intended: Iterable[str]
) -> tuple[list[str], list[str], str, str] | None:
    """(evidence, names, advice, summary) for loss calls whose target requires grad."""
    bad = [c for c in calls if c.target_requires_grad and not is_intended(c.function, intended)]
    if not bad:
        return None
    lines = [
        f"the target of {c.function} requires grad (its grad_fn is {c.target_fn or 'None: a leaf'}): "
        f"backward also runs through the target side, into whatever computed it ({c.where})"
        for c in bad
    ]
    names = sorted({c.function for c in bad})
    advice = (
        "Detach the target: compute it under torch.no_grad() or call .detach() on it (a TD target "
        "r + gamma * max Q(s') from the same network or a target network), so only the prediction side "
        f"learns; {how_to_mark(names)} (both sides trained on purpose)."
    )
    return lines, names, advice, "a loss target requires grad: backward trains what computed the target too"


def logits_lines(calls: Sequence[LossCall]) -> tuple[list[str], list[str], str, str] | None:
    """(evidence, names, advice, summary) for probabilities fed to a loss that applies sigmoid or softmax
    itself."""
    bad = [c for c in calls if c.function in _PROBABILITIES and c.input_fn == _PROBABILITIES[c.function][0]]
    if not bad:
        return None
    lines = [
        f"{c.function} received the output of a {_PROBABILITIES[c.function][1]} (grad_fn {c.input_fn}): "
        f"it applies {_PROBABILITIES[c.function][1].lower()} itself, so it is applied twice and the loss "
        f"sees squashed scores in a narrow range; gradients shrink ({c.where})"
        for c in bad
    ]
    advice = (
        "Feed the loss the raw scores (logits): drop the sigmoid (or softmax, or nn.Sigmoid at the end of "
        "the model) before binary_cross_entropy_with_logits / BCEWithLogitsLoss (cross_entropy), and "
        "apply it only to read probabilities."
    )
    summary = "a loss that applies sigmoid or softmax itself received probabilities: it is applied twice"
    return lines, sorted({c.function for c in bad}), advice, summary
