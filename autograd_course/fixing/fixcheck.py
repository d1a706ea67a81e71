"""Part 2: judge a recorded training by replaying it with trusted code.

`collect_fix_trace` (fixrun.py) runs where the learner's code runs and records raw numbers only:
the parameters before every step, the loss each step returned, the gradient each backward left,
the lr. `judge_fix` replays them in its own process: the true loss and gradient at every recorded
set of weights (its own TinyNet), and, given the code's own optimizer, each step's update from the
recorded gradient. A fake loss, a swapped model, carried-over gradients, skipped parameters or a
faked update show up as a mismatch with the facts, however the fix is written. A check that could
not run (the training raised, the trace is incomplete) is `not_run`, never failed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F

from autograd_course.fixing.fixrun import FIX_STEPS, LOOK_AHEAD, collect_fix_trace
from autograd_course.global_rng import global_rng
from helpers import TinyNet, make_tiny_problem

__all__ = [
    "CHECKS",
    "CHECK_MEANINGS",
    "FIX_STEPS",
    "LOOK_AHEAD",
    "LOSS_DROP",
    "LR",
    "FixJudgement",
    "collect_fix_trace",
    "judge_fix",
    "judge_trace",
    "true_loss",
]

LOSS_DROP = 0.5  # a fix's loss falls at least this share of the way the intended training's does
LR = 0.03  # the learning rate every setup trains TinyNet with (a warm-up rises to it, never above)


CHECKS = ("true_loss", "no_carryover", "params_move", "loss_falls")  # part 2's checks, in order
# What each check measures, in the words the exercise and the feedback show.
CHECK_MEANINGS = {
    "true_loss": "each step returns the model's real loss on the batch, with the weights of that step",
    "no_carryover": "each step's gradients are that step's loss gradients: present, finite, not carried over",
    "params_move": "every parameter changes, with steps no larger than the code intends",
    "loss_falls": (
        f"in {FIX_STEPS} steps the loss falls at least {LOSS_DROP:.0%} as far as the code's intended "
        "training falls from the same start"
    ),
}


def _true_loss_and_grads(weights: list[torch.Tensor], inputs, targets) -> tuple[float, list[torch.Tensor]]:
    with global_rng(fork=False):  # its weights are replaced: only another thread's draws would change
        model = TinyNet()
    with torch.no_grad():
        for p, w in zip(model.parameters(), weights):
            p.copy_(w.float())
    loss = F.mse_loss(model(inputs), targets)
    loss.backward()
    return float(loss.detach()), [p.grad for p in model.parameters()]


def _reference_start(seed: int) -> list[torch.Tensor]:
    torch.manual_seed(seed)  # every broken setup seeds, then builds TinyNet's layers in this order
    return [p.detach() for p in TinyNet().parameters()]


def _start_problem(seed: int, names: list[str], first: dict) -> str | None:
    """Why the fixed training does not start from the challenge's TinyNet (None when it does)."""
    with global_rng():
        start = _reference_start(seed)
    if [list(first[n].shape) for n in names] != [list(w.shape) for w in start]:
        return f"the model you train has parameters {names}; the challenge trains TinyNet's four"
    for n, w in zip(names, start):
        if not torch.allclose(first[n], w):
            return (
                f"the model starts from different weights than the challenge's setup ({n} differs): "
                "fix the bug in the code you were given instead of building another model"
            )
    return None


def _gradient_problem(names: list[str], grads: dict, true_grads: list[torch.Tensor], k: int) -> str | None:
    """Why step k's recorded gradients are not that step's loss gradients (None when they are)."""
    for n, ref in zip(names, true_grads):
        g = grads.get(n)
        if g is None:
            return f"{n} received no gradient (or more than one backward) in step {k + 1}"
        if not bool(torch.isfinite(g).all()):
            return f"the gradient of {n} holds NaN or Inf in step {k + 1}"
        if not torch.allclose(g.float(), ref, rtol=1e-3, atol=1e-6):
            ratio = float(g.norm() / ref.norm().clamp_min(1e-12))
            return (
                f"in step {k + 1} the gradient of {n} is {ratio:.2f}x the gradient of that step's "
                "loss: gradients carry over from earlier steps or come from another loss"
            )
    return None


def _step_problems(trace: dict, names: list[str], inputs, targets) -> tuple[dict[str, str], float]:
    """Problems with the recorded steps (true_loss, no_carryover), and the true loss at the start."""
    params, losses, grads = trace["params"], trace["losses"], trace["grads"]
    problems: dict[str, str] = {}
    first_true = None
    for k in range(FIX_STEPS):
        true_loss, true_grads = _true_loss_and_grads([params[k][n] for n in names], inputs, targets)
        first_true = true_loss if first_true is None else first_true
        got = losses[k]
        if "true_loss" not in problems and not abs(got - true_loss) <= 1e-4 + 1e-3 * abs(true_loss):
            problems["true_loss"] = (
                f"step {k + 1} returned loss {got:.4g}, but the mean squared error of the model "
                f"with its weights at that step is {true_loss:.4g}: return the loss you train on"
            )
        if "no_carryover" not in problems and (why := _gradient_problem(names, grads[k], true_grads, k)):
            problems["no_carryover"] = why
    return problems, float(first_true)


@dataclass
class FixJudgement:
    """Part 2's checks on one trace: each check's status, what it measured and expected, the message."""

    status: dict[str, str] = field(default_factory=dict)  # check -> passed | failed | not_run
    measured: dict[str, str] = field(default_factory=dict)
    expected: dict[str, str] = field(default_factory=dict)
    message: str = ""

    def __repr__(self) -> str:
        return f"FixJudgement({self.status})"

    @property
    def checks(self) -> tuple[tuple[str, bool], ...]:
        """(check, passed) of the checks that ran, in CHECKS order."""
        return tuple((n, self.status[n] == "passed") for n in CHECKS if self.status.get(n) != "not_run")

    def trail(self) -> list[dict[str, str]]:
        """Every check as plain data, for the record the instructor reads."""
        return [
            {
                "name": n,
                "status": self.status.get(n, "not_run"),
                "measured": self.measured.get(n, ""),
                "expected": self.expected.get(n, CHECK_MEANINGS[n]),
            }
            for n in CHECKS
        ]


def _update_problem(trace: dict, names: list[str], setup: Callable[[], tuple]) -> str | None:
    """Why some step is not the code's own optimizer update from that step's recorded gradient."""
    model, optimizer = setup()
    own = list(model.parameters())
    if [list(p.shape) for p in own] != [list(trace["params"][0][n].shape) for n in names]:
        return "the model you train is not the one the code builds"
    for k in range(FIX_STEPS):
        with torch.no_grad():
            for p, n in zip(own, names):
                p.copy_(trace["params"][k][n].float())
                g = trace["grads"][k].get(n)
                p.grad = None if g is None else g.float().clone()
        for group in optimizer.param_groups:
            group["lr"] = float(trace["lrs"][k])
        optimizer.step()
        for p, n in zip(own, names):
            if not torch.allclose(
                p.detach(), trace["params"][k + 1][n].float(), rtol=1e-4, atol=1e-6, equal_nan=True
            ):
                return (
                    f"in step {k + 1}, {n} moved by something other than the code's "
                    f"{type(optimizer).__name__} update from that step's gradient (lr {trace['lrs'][k]:.4g})"
                )
    return None


def _move_problem(trace: dict, names: list[str], setup: Callable[[], tuple] | None) -> str | None:
    params = trace["params"]
    unchanged = [n for n in names if torch.equal(params[0][n], params[-1][n])]
    if unchanged:
        return f"{', '.join(unchanged)} never changed in {FIX_STEPS} steps"
    if (peak := max(trace.get("lrs") or [0.0])) > LR * (1 + 1e-6):
        return (
            f"the learning rate reaches {peak:.4g}, above the lr={LR} this code intends (within "
            f"{FIX_STEPS} steps and {LOOK_AHEAD} more of its schedule): a warm-up rises to it and stays"
        )
    return _update_problem(trace, names, setup) if setup is not None else None


def _patch_problem(trace: dict) -> str | None:
    """Why the training cannot count: the fix changed torch, the toolkit or an optimizer while it ran."""
    patched = [str(p) for p in trace.get("patched") or []]
    if not patched:
        return None
    return (
        f"while your fix ran, {', '.join(patched[:3])} was not what torch or the toolkit gives (even if put "
        "back after): your cell changes torch, the model or the optimizer; fix the functions instead"
    )


def _shape_problem(trace: Any) -> str | None:
    """Why the trace cannot be judged at all (None when it can)."""
    if not isinstance(trace, dict):
        return "no fix trace was recorded"
    if "error" in trace:
        return str(trace["error"])
    params, losses, grads = trace.get("params"), trace.get("losses"), trace.get("grads")
    if not (isinstance(params, list) and isinstance(losses, list) and isinstance(grads, list)):
        return "the fix trace is incomplete"
    if len(losses) != FIX_STEPS or len(params) != FIX_STEPS + 1 or len(grads) != FIX_STEPS:
        return "the fix trace is incomplete"
    if len(trace.get("lrs") or []) != FIX_STEPS + 1:
        return "the fix trace is incomplete"
    return None


def true_loss(seed: int, trace: dict, step: int = -1) -> float:
    """The true loss on the seed's batch of a trace's weights before step `step` (-1: its last
    weights, a trusted run's reach; 0: where it started)."""
    inputs, targets = make_tiny_problem(seed)
    names = list(trace["names"])
    return _true_loss_and_grads([trace["params"][step][n] for n in names], inputs, targets)[0]


def _fall_problem(first: float, final: float, reach: float | None) -> str | None:
    """Why the loss did not fall far enough (None when it did).

    reach: where the code's intended training, run by the checker from the same start, ends. The
    fix must fall LOSS_DROP of that way; some seeds' batches (and a warm-up) keep every training
    slow, so no fixed fraction of the start is fair on all of them. Without a reach (no intended
    training at hand) the fix must end at LOSS_DROP of the start, never a lower bar: reach >= 0."""
    if reach is not None and reach < first:
        if final <= first - LOSS_DROP * (first - reach):
            return None
        return (
            f"the loss went from {first:.4g} to only {final:.4g} in {FIX_STEPS} steps; from the same "
            f"start the code's intended training reaches {reach:.4g}, and a fix falls at least "
            f"{LOSS_DROP:.0%} as far"
        )
    if final <= LOSS_DROP * first:
        return None
    return (
        f"the loss went from {first:.4g} to only {final:.4g} in {FIX_STEPS} steps, above {LOSS_DROP:.0%} "
        f"of its start (the bar here, with no intended training to compare; the grader's, {LOSS_DROP:.0%} "
        "of the intended training's fall from the same start, is never higher)"
    )


def judge_trace(
    seed: int, trace: Any, setup: Callable[[], tuple] | None = None, reach: float | None = None
) -> FixJudgement:
    """Every check of part 2 on a trace collect_fix_trace produced, replayed with trusted code.

    setup builds the code's own (model, optimizer), seeded: each recorded step must be that
    optimizer's update from the recorded gradient (None skips that replay). reach is the final true
    loss of the code's intended training on this seed, run by the checker (None: loss_falls asks
    for a fall to LOSS_DROP of the start, a bar at least as high)."""
    judged = FixJudgement(status=dict.fromkeys(CHECKS, "not_run"))
    if why := _shape_problem(trace):
        judged.message = why
        return judged
    names = list(trace.get("names", []))
    if why := _patch_problem(trace) or _start_problem(seed, names, trace["params"][0]):
        judged.status = dict.fromkeys(CHECKS, "failed")
        judged.message = why
        judged.measured = dict.fromkeys(CHECKS, why)
        return judged
    inputs, targets = make_tiny_problem(seed)
    problems, first_true = _step_problems(trace, names, inputs, targets)
    if why := _move_problem(trace, names, setup):
        problems["params_move"] = why
    final, _ = _true_loss_and_grads([trace["params"][-1][n] for n in names], inputs, targets)
    if why := _fall_problem(first_true, final, reach):
        problems["loss_falls"] = why
    judged.status = {n: "failed" if n in problems else "passed" for n in CHECKS}
    judged.measured = {n: problems.get(n, "as expected") for n in CHECKS}
    judged.measured["loss_falls"] = problems.get("loss_falls", f"{first_true:.4g} -> {final:.4g}")
    judged.message = next((problems[n] for n in CHECKS if n in problems), "") or (
        f"the loss fell from {first_true:.4g} to {final:.4g} in {FIX_STEPS} steps; every parameter trained"
    )
    return judged


def judge_fix(
    seed: int, trace: Any, setup: Callable[[], tuple] | None = None, reach: float | None = None
) -> tuple[tuple[tuple[str, bool], ...], str]:
    """(checks that ran, message) for part 2 from a trace; checks follow CHECKS."""
    judged = judge_trace(seed, trace, setup, reach)
    return judged.checks, judged.message
