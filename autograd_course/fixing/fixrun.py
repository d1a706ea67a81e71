"""Part 2's run: the learner's fixed functions in place of the broken ones, trained; raw numbers out.

This file is self-contained on purpose: it imports only the standard library, torch, the
learner's toolkit (`helpers`) and what both parts' runs share (harness_core, whose source the grader
sends first), never the rest of the course. The practice check imports it; the
grader sends its *source* into a sandboxed kernel that cannot import the course (no catalogue, no
reference, no grader), runs it there, and judges the numbers it writes in its own process by
replaying them (fixcheck.judge_fix). Nothing here decides a grade, so nothing here must be trusted.

`run_fix` also trains the given broken code, unchanged, after the learner's cell ran and after the
fix trained: the grader compares that run with its own run of the same code, so a cell that patches
torch, the model or the optimizer (instead of fixing its functions) shows up as the given code
training differently. The whole run is watched as part 1's is (harness_core.watched: what the answer
reached for), and the fixed training notes the exceptions the learner's functions caught and went on
from (harness_core.swallowed): both are in what it writes, for the instructor.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import torch
from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

from autograd_course.harness_core import (
    FIXABLE,
    answer_run,
    broken_namespace,
    failure,
    given_namespace,
    may_catch,
    own_names,
    run_answer,
    swallowed,
    untouched,
    watched_objects,
    write_record,
)
from helpers import make_tiny_problem
from helpers.doctor.discover import find_schedulers
from helpers.doctor.lookahead import lrs_ahead

__all__ = ["FIX_STEPS", "LOOK_AHEAD", "collect_fix_trace", "packed", "run_fix", "train"]

FIX_STEPS = 40  # steps the fixed training runs
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


def _made(made: Any) -> str | None:
    if not (isinstance(made, tuple) and len(made) == 2):
        return f"fixed_setup must return (model, optimizer), got {type(made).__name__}"
    if not isinstance(made[0], torch.nn.Module):
        return f"fixed_setup must return a torch.nn.Module first, got {type(made[0]).__name__}"
    return None


class _Untouched:
    """Whether what an answer must leave as it is (harness_core.watched_objects, part 1's too) stays as
    it was while the fix runs (harness_core.untouched, made on entering). Part 1 compares once, after
    the answer; here `look` compares after each call of the fix and at every hook the training fires
    inside its calls (each module's forward, each gradient, each optimizer step), so a patch the fix
    puts back before returning is seen while it is in place. `changed` names what differed the first
    time something did."""

    def __init__(self) -> None:
        self.before = untouched(watched_objects())
        self.changed: list[str] = []
        self.handles: list[Any] = []

    def __repr__(self) -> str:
        return f"_Untouched(changed={self.changed})"

    def look(self, *_args: Any) -> None:
        if not self.changed:
            self.changed = self.before.differ()

    def __enter__(self) -> _Untouched:
        self.handles = [
            register_module_forward_pre_hook(lambda *_: self.look()),
            register_module_forward_hook(lambda *_: self.look()),
            register_optimizer_step_pre_hook(lambda *_: self.look()),
            register_optimizer_step_post_hook(lambda *_: self.look()),
        ]
        return self

    def __exit__(self, *_exc: Any) -> None:
        for handle in self.handles:
            handle.remove()


def collect_fix_trace(
    fixed_setup: Callable, fixed_step: Callable, seed: int, device: str, *, watch: bool = True
) -> dict[str, Any]:
    """Run fixed_setup(seed, device) and FIX_STEPS fixed_step calls; raw tensors on CPU, and `patched`:
    what of torch, the toolkit or the optimizers differed while they ran (absent when nothing did).
    watch=False skips that watch (about half the training's time, by py-spy): only for the grader's own
    runs of its own code, where no learner code runs in the process."""
    if not watch:
        return _trained(fixed_setup, fixed_step, seed, device, lambda: None)
    with _Untouched() as untouched:
        trace = _trained(fixed_setup, fixed_step, seed, device, untouched.look)
    return trace | ({"patched": untouched.changed} if untouched.changed else {})


def _trained(fixed_setup: Callable, fixed_step: Callable, seed: int, device: str, look: Callable) -> dict:
    """collect_fix_trace's training; look() runs after each call of the fix and at each gradient."""
    made = fixed_setup(seed, device)
    look()
    if why := _made(made):
        return {"error": why}
    model, optimizer = made
    named = list(model.named_parameters())
    captured: dict[str, list[torch.Tensor]] = {n: [] for n, _ in named}

    def hook_for(name: str) -> Callable:
        def hook(p: torch.Tensor) -> None:
            look()
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
            look()
            if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
                return {"error": f"fixed_step must return the loss tensor, got {type(loss).__name__}"}
            losses.append(float(loss.detach()))
            grads.append({n: (v[-1] if len(v) == 1 else None) for n, v in captured.items()})
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


def _stacked(series: list[torch.Tensor], like: torch.Tensor, name: str) -> torch.Tensor:
    """The tensors stacked, each of like's shape and dtype (torch.stack would promote a dtype)."""
    if any(t.shape != like.shape or t.dtype != like.dtype for t in series):
        raise ValueError(f"{name} changed its shape or dtype while it trained")
    return torch.stack(series)


def packed(trace: Any) -> Any:
    """A training as run_fix writes it to its file: a few tensors, not one per parameter and step.

    Per parameter name, one tensor stacking its FIX_STEPS + 1 snapshots (`params`) and one stacking
    its FIX_STEPS gradients (`grads`, zeros where a step left none), with `has_grad` (booleans: which
    steps left one, so a missing gradient stays apart from a zero one); `losses` and `lrs` as float64
    tensors. An error, not_attempted or anything else is returned as it is. The grader reads it back
    with autograd_course.fixing.record.unpacked (this module cannot import it: see its docstring)."""
    if not isinstance(trace, dict) or "params" not in trace:
        return trace
    try:
        names, grads, first = trace["names"], trace["grads"], trace["params"][0]
        zeros = {n: torch.zeros_like(first[n]) for n in names}
        return {k: v for k, v in trace.items() if k not in ("params", "grads")} | {
            "params": {n: _stacked([p[n] for p in trace["params"]], first[n], n) for n in names},
            "grads": {n: _stacked([g.get(n, zeros[n]) for g in grads], first[n], n) for n in names},
            "has_grad": {n: torch.tensor([n in g for g in grads], dtype=torch.bool) for n in names},
            "losses": torch.tensor(trace["losses"], dtype=torch.float64),
            "lrs": torch.tensor(trace["lrs"], dtype=torch.float64),
        }
    except Exception as exc:  # the fix changed a parameter's shape or dtype (or broke torch.stack)
        notes = {k: trace[k] for k in ("patched", "swallowed") if k in trace}
        return {"error": f"the training could not be recorded: {type(exc).__name__}: {exc}"[:300]} | notes


def train(
    code: str, filename: str, overrides: dict[str, Callable], seed: int, trace_catches: bool = False
) -> dict[str, Any]:
    """The given code (compiled under filename) with overrides in place of its functions, trained; with
    trace_catches, `swallowed` (absent when none): the exceptions the learner's code caught and went on
    from."""
    namespace = broken_namespace(code, filename)
    namespace.update({FIXABLE[n]: f for n, f in overrides.items()})
    traced = swallowed() if trace_catches else contextlib.nullcontext([])
    try:
        with torch.random.fork_rng(devices=[]), traced as caught:
            trace = collect_fix_trace(namespace["broken_setup"], namespace["broken_step"], seed, "cpu")
    except Exception as exc:  # the training raised: that is what it did
        return {"error": f"the training raised {type(exc).__name__}: {failure(exc)['message']}"}
    return trace | ({"swallowed": caught} if caught else {})


def run_fix(
    source: str,
    code: str,
    filename: str,
    seed: int,
    out: str,
    prelude: Any = (),
    *,
    _write: tuple = (write_record, torch.save),
) -> None:
    """Run the earlier cells the answer needs (prelude: cell number and code), the answer cell, train
    its fixed functions in place of the given ones, then the given code alone, all watched; write {fix,
    given, printed, raised, ran, changed, reached} to out (torch.save: tensors, numbers, strings). What
    writes the record is taken before the answer runs (`_write`, when this module was made); the run ends
    as every run does (harness_core.write_record), and harness names the answer replaced are reported."""
    finish, save = _write
    ns = given_namespace(code, filename, seed)
    with answer_run(_LOADED) as did:
        raised = run_answer(source, ns, prelude)
        answers = {n: ns[n] for n in FIXABLE if n in ns}
        wrong = sorted(n for n, f in answers.items() if not callable(f))
        if wrong:
            fix: dict[str, Any] = {"error": f"{wrong[0]} must be a function (def {wrong[0]}(...): ...)"}
        else:
            catches = may_catch(source, *(python for _, python in prelude or ()))
            fix = (
                train(code, filename, answers, seed, trace_catches=catches)
                if answers
                else {"not_attempted": True}
            )
        given = train(code, filename, {}, seed)  # after the fix: a patch it left behind shows here
        fix, given = packed(fix), packed(given)  # the file's form: a few stacked tensors each
    finish(did | {"fix": fix, "given": given, "raised": raised, "ran": sorted(answers)}, out, save)


# This module's and the core's names as made, before any answer ran: every run reports a name an answer
# replaced, in that run or in an earlier one in the same kernel (a learner's answers share one).
_LOADED = own_names(globals())
