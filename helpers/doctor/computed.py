"""The checks of what a step computes, beside the checks of its plumbing: each reads the step's trace
(trace.py) and returns (evidence, names, advice) or None; checklist.py runs each after its stage's
own check. `f` is the step's StepFacts."""

from __future__ import annotations

from typing import Any

from helpers.doctor.buffer_weights import buffer_lines
from helpers.doctor.clip_order import clip_lines
from helpers.doctor.dead_terms import dead_term_lines
from helpers.doctor.eval_mode import eval_lines
from helpers.doctor.outside_leaves import outside_lines
from helpers.doctor.shared_modules import shared_lines
from helpers.doctor.step_warnings import warning_lines
from helpers.doctor.targets import logits_lines, target_lines

__all__ = ["CHECKED", "clipping", "eval_mode", "loss_content", "outside", "shared", "step_warnings"]

# (evidence, names, advice), and what was found when the stage's own description does not say it
Found = tuple[list[str], list[str], str] | tuple[list[str], list[str], str, str] | None


def eval_mode(f: Any) -> Found:
    trace = f.ev.trace
    return eval_lines(trace.eval_modules, f.model, f.trainable, f.intended) if trace else None


def loss_content(f: Any) -> Found:
    """An undetached target, probabilities fed to a logits loss, a term that carries no gradient."""
    trace = f.ev.trace
    if trace is None or f.ev.error is not None:
        return None
    calls = trace.losses.calls
    return (
        target_lines(calls, f.intended)
        or logits_lines(calls)
        or dead_term_lines(f.ev.loss, trace.losses.constants, [n for n in f.trainable if n not in f.got])
    )


def step_warnings(f: Any) -> Found:
    return warning_lines(f.ev.trace.warnings) if f.ev.trace else None


def clipping(f: Any) -> Found:
    return clip_lines(f.ev.trace.clips, f.ev.trace.order) if f.ev.trace else None


def shared(f: Any) -> Found:
    """One module under several names, then buffers used as weights."""
    used = f.ev.trace.weights.used if f.ev.trace else {}
    return shared_lines(f.model, f.intended) or buffer_lines(f.model, used, f.intended)


def outside(f: Any) -> Found:
    trace = f.ev.trace
    if trace is None or f.ev.error is not None or not f.final:  # after the check of layers made anew
        return None
    return outside_lines(f.ev.loss, f.model, f.held, trace.outside)


# what each stage checks beyond its own check, for the report that says what was checked
CHECKED = {
    "GRAD_MODE_DISABLED": "modules whose behaviour eval() changes (dropout, BatchNorm) that ran in eval mode",
    "LOSS_NOT_IN_GRAPH": "loss targets that require grad, sigmoid or softmax outputs fed to a loss that "
    "applies it, constant terms added to the loss",
    "BACKWARD_FAILED": "the warnings the step raised (a loss that broadcasts)",
    "GRAD_MAGNITUDE": "torch.nn.utils clip calls: what they received, whether backward() had run before "
    "them and whether optimizer.step() had already run",
    "PARAMS_UNREGISTERED": "modules registered under several names, buffers named as weights that a "
    "linear, convolution or embedding used as its weight, and buffers named as a distribution's "
    "parameters (mu, sigma, logvar) that the step used, in a module that trains parameters of its own",
    "NOT_IN_OPTIMIZER": "leaves of the loss's graph outside the model that no optimizer holds",
}
