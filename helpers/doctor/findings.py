"""Evidence and advice for findings that need more than one line of the checklist: parameters an
optimizer step made non-finite, gradients clipped while scaled, a schedule that drives the
learning rate toward 0, a reentrant checkpoint that hides parameters from backward, and
parameter copies a module holds."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import torch

from helpers.doctor.lookahead import FALLS_TO, LrFall

__all__ = [
    "checkpoint_lines",
    "clipped_while_scaled",
    "copies_lines",
    "lr_falls_lines",
    "made_non_finite",
    "names_text",
    "warm_up_lines",
]


def names_text(names: Iterable[str], limit: int = 6) -> str:
    """At most `limit` names, comma-separated, with a count of the rest."""
    names = list(names)
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _eps_hints(optimizer: torch.optim.Optimizer, bad: set[int]) -> list[str]:
    """For groups holding the bad parameters: an eps that is 0 in the parameters' dtype."""
    hints = []
    for i, group in enumerate(optimizer.param_groups):
        params = [p for p in group["params"] if id(p) in bad]
        eps = group.get("eps")
        if not params or not isinstance(eps, (int, float)):
            continue
        dtype = params[0].dtype
        if dtype.is_floating_point and torch.tensor(float(eps), dtype=dtype).item() == 0.0:
            hints.append(
                f"{type(optimizer).__name__} param group {i}: eps={eps:g} is 0 in {dtype} (the parameters' "
                "dtype): where the second moment v underflows to 0 the update divides by sqrt(v) + eps = 0"
            )
    return hints


def made_non_finite(f: Any, made: list[str], at_start: bool) -> tuple[list[str], str]:
    """Evidence that parameters hold NaN/Inf: written by this step's optimizer.step(), or already there."""
    if at_start:
        return (
            [
                f"the parameters {names_text(made)} already hold NaN or Inf when diagnose began "
                "(torch.isfinite(p).all() is False): every forward computes with them",
            ],
            "The parameters themselves are not finite: reload or re-initialise them, then run diagnose "
            "from finite parameters to find the step that wrote them.",
        )
    params = dict(f.named)
    largest = max((f.ev.max_abs.get(n, 0.0) for n in f.trainable), default=0.0)
    lines = [
        f"optimizer.step() wrote NaN or Inf into the parameters {names_text(made)}: finite before the step, "
        "non-finite after it (torch.isfinite(p).all() is False)",
        f"the loss ({f.ev.loss_value:.6g}) and every gradient (largest |g| {largest:.4g}) were finite: "
        "the update itself is not; the next forward computes with these parameters",
    ]
    dtypes = sorted({str(params[n].dtype) for n in made if n in params})
    lines += _eps_hints(f.optimizer, {id(params[n]) for n in made if n in params})
    if any(d in ("torch.float16", "torch.bfloat16") for d in dtypes):
        lines.append(
            f"the parameters are {', '.join(dtypes)}: the optimizer's state and update are in half precision"
        )
    advice = (
        "The optimizer's update is non-finite although the gradients are finite: keep parameters and "
        "optimizer state in float32 and compute in half precision with torch.autocast (and a GradScaler), "
        "or raise eps (1e-4 holds in float16); check that the learning rate is not huge."
    )
    return lines, advice


def clipped_while_scaled(f: Any) -> tuple[list[str], str] | None:
    """Gradients the optimizer used much smaller than backward made, by about the GradScaler's scale."""
    ev = f.ev
    if not ev.scale or ev.scale <= 1.0 or ev.step_sq_norm is None or ev.sq_norm <= 0.0:
        return None
    made, used = math.sqrt(ev.sq_norm), math.sqrt(ev.step_sq_norm)
    # clipped after unscale_, the optimizer sees max_norm; clipped before, max_norm / scale
    if not (math.isfinite(made) and 0.0 < used < 0.5 * made and used * math.sqrt(ev.scale) < made):
        return None
    lines = [
        f"the gradients optimizer.step() used have total norm {used:.4g}; backward made {made:.4g} "
        f"(unscaled): something shrank them {made / used:.4g} times between backward and the step",
        f"{used:.4g} x the GradScaler's scale {ev.scale:g} = {used * ev.scale:.4g}: the norm a clip "
        "(clip_grad_norm_ with max_norm about that) leaves on the scaled gradients, which "
        "scaler.step() then divided by the scale",
    ]
    advice = (
        "The gradients were clipped while still scaled: call scaler.unscale_(optimizer) before "
        "torch.nn.utils.clip_grad_norm_, then scaler.step(optimizer) and scaler.update()."
    )
    return lines, advice


def lr_falls_lines(falls: list[LrFall]) -> tuple[list[str], str]:
    """Evidence that a schedule stepped once per call of train_step drives lr toward 0 within a few calls."""
    lines = [
        f"{a.scheduler} is stepped {a.per_call} time(s) per call of train_step: looked ahead on a copy, "
        f"the learning rate of param group {a.group} falls from {a.lr_now:g} to {a.lr_then:g} "
        f"(at most {FALLS_TO:g} of it) after {a.calls} more call(s)"
        for a in falls
    ]
    lines.append("parameters move now, but after those calls (a fraction of an epoch) they stop moving")
    advice = (
        "A schedule meant per epoch is stepped per batch: call scheduler.step() once per epoch (outside "
        "the batch loop), or size it in batches (step_size, T_max, total_steps = epochs x batches)."
    )
    return lines, advice


def warm_up_lines(falls: list[LrFall]) -> list[str]:
    """Notes for schedules that rise then fall toward 0: a warm-up and a decay, counted in steps."""
    return [
        f"{a.scheduler} warms up, then the learning rate of param group {a.group} falls from {a.lr_now:g} "
        f"to {a.lr_then:g} after {a.calls} more call(s) of train_step: a schedule sized in optimizer "
        "steps (a warm-up then a decay), whose end is its total step count: not a finding"
        for a in falls
    ]


def checkpoint_lines(f: Any, missing: list[str]) -> tuple[list[str], str] | None:
    """Evidence that the parameters without gradients ran only inside a reentrant checkpoint."""
    where: dict[str, list[str]] = {}
    for name in missing:
        module = name.rpartition(".")[0]
        for ran, called in f.ev.checkpointed.items():
            if module == ran or module.startswith(ran + ".") or ran.startswith(module + "."):
                where.setdefault(called, []).append(name)
                break
    if not where:
        return None
    lines = [
        f"{names_text(names)} ran inside torch.utils.checkpoint called in {called}, with grad mode off "
        "(a reentrant checkpoint runs its function under no_grad and replays it in backward only when "
        "one of its tensor inputs requires grad): no gradient reached them"
        for called, names in where.items()
    ]
    advice = (
        "The reentrant checkpoint (use_reentrant=True) hides these parameters from backward because no "
        "input of the checkpointed call requires grad (a frozen embedding before it): pass "
        "use_reentrant=False to torch.utils.checkpoint.checkpoint, or make its input require grad "
        "(inputs.requires_grad_(), enable_input_require_grads() on a Hugging Face model)."
    )
    return lines, advice


def copies_lines(copies: list[tuple[str, torch.Tensor]]) -> list[str]:
    """Evidence for non-leaf copies of parameters held as module attributes."""
    shown = ", ".join(f"{path} (grad_fn={type(t.grad_fn).__name__})" for path, t in copies[:6])
    return [
        f"the model holds non-leaf tensors that require grad as attributes: {shown}: each is a copy "
        "made from an nn.Parameter by .to(device), .cuda(), .double() or arithmetic after "
        "nn.Parameter(...); is_leaf is False",
        "the nn.Parameter behind each copy is held by nobody but the copy's graph: it is not in "
        "model.parameters() nor in the optimizer, so it is never trained",
    ]
