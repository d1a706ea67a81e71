"""Part 2: run the learner's fixed step and record a trace; judge the trace with trusted code.

`collect_fix_trace` runs in the learner's kernel: it calls fixed_setup/fixed_step and records raw
numbers only (parameters before every step, the loss each step returned, the gradient each
backward left, via post-accumulate hooks). `judge_fix` recomputes, in its own process and with its
own TinyNet, the true loss and gradient at every recorded set of weights, so a fake loss, a swapped
model, accumulated gradients or skipped parameters show up as a mismatch with the facts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from helpers import TinyNet, make_tiny_problem
from helpers.doctor.discover import find_schedulers
from helpers.doctor.lookahead import lrs_ahead

__all__ = [
    "CHECKS",
    "CHECK_MEANINGS",
    "FIX_STEPS",
    "LOOK_AHEAD",
    "LOSS_DROP",
    "LR",
    "collect_fix_trace",
    "judge_fix",
]

FIX_STEPS = 40  # steps the fixed training runs
LOSS_DROP = 0.5  # the final loss must be at most this fraction of the first
LR = 0.03  # the learning rate every setup trains TinyNet with (a warm-up rises to it, never above)
LOOK_AHEAD = 200  # scheduler steps looked ahead, on a copy, after the fixed training


def _lr(optimizer: Any) -> float:
    """The highest lr of a torch optimizer's groups (0.0 for anything else: nothing to judge)."""
    if not isinstance(optimizer, torch.optim.Optimizer):
        return 0.0
    return max((float(g.get("lr", 0.0)) for g in optimizer.param_groups), default=0.0)


def _lr_peak_ahead(optimizer: Any) -> float:
    """The highest lr now and in the next LOOK_AHEAD steps of the optimizer's schedules (on copies)."""
    if not isinstance(optimizer, torch.optim.Optimizer):
        return _lr(optimizer)
    schedulers = find_schedulers(optimizer, lambda: None)
    ahead = lrs_ahead(optimizer, schedulers, LOOK_AHEAD) if schedulers else ()
    return max([_lr(optimizer), *(max(lrs, default=0.0) for _, lrs in ahead)])


def collect_fix_trace(fixed_setup: Callable, fixed_step: Callable, seed: int, device: str) -> dict[str, Any]:
    """Run fixed_setup(seed, device) and FIX_STEPS fixed_step calls; raw tensors on CPU."""
    made = fixed_setup(seed, device)
    if not (isinstance(made, tuple) and len(made) == 2):
        return {"error": f"fixed_setup must return (model, optimizer), got {type(made).__name__}"}
    model, optimizer = made
    if not isinstance(model, torch.nn.Module):
        return {"error": f"fixed_setup must return a torch.nn.Module first, got {type(model).__name__}"}
    named = list(model.named_parameters())
    captured: dict[str, list[torch.Tensor]] = {n: [] for n, _ in named}

    def hook_for(name: str) -> Callable:
        def hook(p: torch.Tensor) -> None:
            captured[name].append(p.grad.detach().to("cpu", copy=True))

        return hook

    handles = [p.register_post_accumulate_grad_hook(hook_for(n)) for n, p in named if p.requires_grad]
    inputs, targets = make_tiny_problem(seed, device=device)
    params, losses, grads, lrs = [], [], [], []
    try:
        for _ in range(FIX_STEPS):
            params.append({n: p.detach().to("cpu", copy=True) for n, p in named})
            lrs.append(_lr(optimizer))
            for v in captured.values():
                v.clear()
            loss = fixed_step(model, optimizer, inputs, targets)
            if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
                return {"error": f"fixed_step must return the loss tensor, got {type(loss).__name__}"}
            losses.append(float(loss.detach()))
            grads.append({n: (v[-1] if len(v) == 1 else None) for n, v in captured.items()})
            grads[-1]["__backward_calls__"] = torch.tensor([len(v) for v in captured.values()] or [0])
        params.append({n: p.detach().to("cpu", copy=True) for n, p in named})
        lrs.append(_lr_peak_ahead(optimizer))
    finally:
        for h in handles:
            h.remove()
    return {
        "lrs": lrs,  # the lr of each step, then the highest its schedule reaches in LOOK_AHEAD more
        "seed": seed,
        "names": [n for n, _ in named],
        "params": params,
        "losses": losses,
        "grads": [{k: v for k, v in g.items() if v is not None} for g in grads],
    }


CHECKS = ("true_loss", "no_carryover", "params_move", "loss_falls")  # part 2's checks, in order
# What each check measures, in the words the exercise and the feedback show.
CHECK_MEANINGS = {
    "true_loss": "each step returns the model's real loss on the batch, with the weights of that step",
    "no_carryover": "each step's gradients are that step's loss gradients: present, finite, not carried over",
    "params_move": "every parameter changes, with steps no larger than the code intends",
    "loss_falls": f"the loss falls to at most {LOSS_DROP:.0%} of where it started in {FIX_STEPS} steps",
}


def _true_loss_and_grads(weights: list[torch.Tensor], inputs, targets) -> tuple[float, list[torch.Tensor]]:
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
    with torch.random.fork_rng(devices=[]):
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


def judge_fix(seed: int, trace: Any) -> tuple[tuple[tuple[str, bool], ...], str]:
    """(checks, message) for part 2 from a trace collect_fix_trace produced; checks follow CHECKS."""
    failed = tuple((name, False) for name in CHECKS)
    if not isinstance(trace, dict):
        return failed, "no fix trace was recorded"
    if "error" in trace:
        return failed, str(trace["error"])
    names = list(trace.get("names", []))
    params, losses, grads = trace["params"], trace["losses"], trace["grads"]
    if len(losses) != FIX_STEPS or len(params) != FIX_STEPS + 1 or len(grads) != FIX_STEPS:
        return failed, "the fix trace is incomplete"
    if why := _start_problem(seed, names, params[0]):
        return failed, why
    inputs, targets = make_tiny_problem(seed)
    problems, first_true = _step_problems(trace, names, inputs, targets)
    unchanged = [n for n in names if torch.equal(params[0][n], params[-1][n])]
    if unchanged:
        problems["params_move"] = f"{', '.join(unchanged)} never changed in {FIX_STEPS} steps"
    elif (peak := max(trace.get("lrs") or [0.0])) > LR * (1 + 1e-6):
        problems["params_move"] = (
            f"the learning rate reaches {peak:.4g}, above the lr={LR} this code intends (within "
            f"{FIX_STEPS} steps and {LOOK_AHEAD} more of its schedule): a warm-up rises to it and stays"
        )
    final, _ = _true_loss_and_grads([params[-1][n] for n in names], inputs, targets)
    if not final <= LOSS_DROP * first_true:
        problems["loss_falls"] = (
            f"the loss went from {first_true:.4g} to only {final:.4g} in {FIX_STEPS} steps"
        )
    checks = tuple((name, name not in problems) for name in CHECKS)
    if problems:
        return checks, next(problems[name] for name in CHECKS if name in problems)
    return (
        checks,
        f"the loss fell from {first_true:.4g} to {final:.4g} in {FIX_STEPS} steps; every parameter trained",
    )
