"""`diagnose`: run the user's own training step and walk the debugging checklist for them."""

from __future__ import annotations

import html
import math
import textwrap
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from helpers._table import STATUS_COLOURS
from helpers._validate import require_module
from helpers._walk import stray_tensors
from helpers.doctor.carried import carried_graphs, graph_attributes, replaced_after_wrapping
from helpers.doctor.checklist import ADVICE, CHECKLIST, Finding, StepFacts, frozen_match
from helpers.doctor.compiled import run_eagerly, unwrap_compiled
from helpers.doctor.coverage import coverage
from helpers.doctor.discover import find_optimizers, find_scalers, find_schedulers
from helpers.doctor.findings import warm_up_lines
from helpers.doctor.lookahead import lr_ahead, lr_falls
from helpers.doctor.module_runs import ModuleRuns
from helpers.doctor.probe import run_probed_step
from helpers.doctor.state import TrainingState
from helpers.doctor.step_warnings import warning_notes
from helpers.gradients import classify_parameter_gradients, optimizer_parameter_ids
from helpers.parameters import ParameterChanges, parameter_changes
from helpers.status import Stage
from helpers.thresholds import VANISHING

__all__ = ["ADVICE", "Diagnosis", "diagnose"]


WIDTH = 100  # characters a line of the plain-text report holds


def _fill(text: str, first: str, rest: str) -> str:
    """One item of the plain-text report, wrapped between words (a notebook column breaks long lines
    anywhere, mid-word); names with dots and brackets stay whole."""
    return textwrap.fill(
        text,
        WIDTH,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
    )


@dataclass
class Diagnosis:
    """diagnose()'s result: the first failing `.stage`, the `.evidence` for it, and `.advice`."""

    stage: Stage
    evidence: list[str]
    advice: str
    step: int | None  # the step (1-based) that failed; None when the stage is OK
    steps: int  # how many steps ran
    names: list[str] = field(default_factory=list)  # the parameters or modules involved
    losses: list[float | None] = field(default_factory=list)
    reports: dict[str, Any] = field(default_factory=dict)  # the reports behind the evidence
    error: BaseException | None = None  # the autograd error train_step raised, if any
    checked: list[str] = field(default_factory=list)  # when OK: every check that ran, and what it read
    not_run: list[str] = field(default_factory=list)  # when OK: the checks that had nothing to read, and why
    summary: str = ""  # what was found, when the stage's own description does not say it

    @property
    def headline(self) -> str:
        """What failed, in words: the finding's own summary, or the stage's description."""
        return self.summary or self.stage.value

    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return self.stage is Stage.OK

    def _headline(self) -> str:
        where = f" at step {self.step} of {self.steps}" if self.step else f" ({self.steps} steps)"
        return f"Diagnosis: {self.stage.name}{where}: {self.headline}"

    def _error_text(self) -> str:
        return f"{type(self.error).__name__}: {self.error}" if self.error is not None else ""

    def __repr__(self) -> str:
        lines = [_fill(self._headline(), "", "  "), "evidence:"]
        lines += [_fill(e, "  - ", "    ") for e in self.evidence]
        lines += ["advice:", _fill(self.advice, "  ", "  ")]
        if self.error is not None:
            lines += ["error (the original, kept as .error):", _fill(self._error_text(), "  ", "  ")]
        if self.checked:
            lines += ["checked:", *(_fill(c, "  - ", "    ") for c in self.checked)]
            lines += ["not run:", *(_fill(c, "  - ", "    ") for c in self.not_run or ["none"])]
        return "\n".join(lines)

    def _coverage_html(self) -> str:
        if not self.checked:
            return ""
        return _html_list("checked", self.checked) + _html_list("not run", self.not_run or ["none"])

    def _repr_html_(self) -> str:
        colour = STATUS_COLOURS["OK"] if self.ok else "#ffcdd2"
        items = "".join(f"<li>{html.escape(e)}</li>" for e in self.evidence)
        return (
            f"<div class='autograd-diagnosis'><p style='background:{colour};padding:4px'>"
            f"<b>{html.escape(self.stage.name)}</b> {html.escape(self.headline)}"
            f"{html.escape(f' (step {self.step} of {self.steps})' if self.step else '')}</p>"
            f"<p><b>evidence</b></p><ul>{items}</ul>"
            f"<p><b>advice</b>: {html.escape(self.advice)}</p>"
            + (
                f"<p><b>error</b> (the original, kept as <code>.error</code>): "
                f"<code>{html.escape(self._error_text())}</code></p>"
                if self.error is not None
                else ""
            )
            + self._coverage_html()
            + "</div>"
        )


def _html_list(title: str, items: list[str]) -> str:
    return f"<p><b>{title}</b></p><ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in items) + "</ul>"


def _check_frozen(model: nn.Module, frozen: Iterable[str], argument: str = "frozen") -> tuple[str, ...]:
    """The names of `frozen=` (or `conditional=`), each a parameter or a module path of the model."""
    if isinstance(frozen, str):
        frozen = (frozen,)
    items = tuple(frozen)
    for f in items:
        if not isinstance(f, str) or not f:
            raise TypeError(f"expected {argument} to hold parameter names or module paths, got {f!r}")
    params = [n for n, _ in model.named_parameters()]
    unknown = [f for f in items if not any(frozen_match(n, (f,)) for n in params)]
    if unknown:
        raise ValueError(f"{argument} names no parameter or module: {unknown}; the parameters are {params}")
    return items


def _given_optimizers(optimizer: Any) -> tuple[Any, list[torch.optim.Optimizer]]:
    """The optimizer the checks follow, and the others given with it (a list or tuple of optimizers)."""
    if not isinstance(optimizer, (list, tuple)):
        return optimizer, []
    if not optimizer:
        raise ValueError("expected an optimizer or a non-empty list of optimizers, got an empty one")
    for o in optimizer:
        optimizer_parameter_ids(o)  # the clear error for anything else
    return optimizer[0], list(optimizer[1:])


def _validate(
    train_step: Any, model: Any, optimizer: Any, steps: Any, max_grad_norm: Any, min_grad: Any
) -> tuple[torch.optim.Optimizer, list[torch.optim.Optimizer]]:
    """The arguments checked; the optimizer the checks follow and the others given with it."""
    if not callable(train_step):
        raise TypeError(
            f"expected train_step to be a function of no arguments, got {type(train_step).__name__}"
        )
    require_module(model, allow_empty=True)  # a model that holds only copies is a finding, below
    optimizer, given = _given_optimizers(optimizer)
    optimizer_parameter_ids(optimizer)
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"expected steps to be an int >= 1, got {steps!r}")
    if max_grad_norm is not None and not (isinstance(max_grad_norm, (int, float)) and max_grad_norm > 0):
        raise ValueError(f"expected max_grad_norm > 0 (or None: scaled by the loss), got {max_grad_norm!r}")
    if not (isinstance(min_grad, (int, float)) and min_grad >= 0):
        raise ValueError(f"expected min_grad >= 0, got {min_grad!r}")
    return optimizer, given


def _schedulers(
    optimizer: torch.optim.Optimizer, train_step: Callable[[], Any], given: Iterable[Any] | None
) -> list[Any]:
    found = find_schedulers(optimizer, train_step)
    for s in given or ():
        if not hasattr(s, "state_dict") or not hasattr(s, "load_state_dict"):
            raise TypeError(f"expected schedulers to hold LR schedulers, got {type(s).__name__}")
        if s not in found:
            found.append(s)
    return found


def _scaler(train_step: Callable[[], Any], given: Any) -> torch.amp.GradScaler | None:
    if given is not None:
        if not isinstance(given, torch.amp.GradScaler):
            raise TypeError(f"expected scaler to be a torch.amp.GradScaler, got {type(given).__name__}")
        return given if given.is_enabled() else None
    found = find_scalers(train_step)
    return found[0] if found else None


def _changes(model: nn.Module, saved: TrainingState) -> ParameterChanges:
    """How far each parameter moved since diagnose began (against the copies kept to restore it).

    A parameter never copied was never changed by a step: it is compared with itself.
    """
    snapshot = {}
    for name, p in model.named_parameters():
        before = saved.before(p)
        snapshot[name] = p.detach() if before is None else before
    return parameter_changes(model, snapshot)


def _notes(ev: Any, step: int, facts: StepFacts) -> list[str]:
    """What a step showed that is worth saying although it is not a finding."""
    notes = []
    if ev.skipped_by_scaler and not facts.all_skipped:
        bad = [n for n in facts.trainable if not math.isfinite(ev.max_abs.get(n, 0.0))]
        shown = ", ".join(bad[:6]) + (f" and {len(bad) - 6} more" if len(bad) > 6 else "")
        notes.append(
            f"step {step}: GradScaler skipped optimizer.step() (scale {ev.scale:g}, non-finite scaled "
            f"gradients in {shown or 'parameters outside the model'}); the scale settled at "
            f"{ev.scale_after:g}: not a finding"
        )
    held = any(not a.rises_next for a in facts.lr_ahead)  # a finding (PARAMS_NOT_UPDATED), not a note
    if facts.scheduled and ev.lrs is not None and any(lr == 0.0 for lr in ev.lrs) and not held:
        notes.append(
            f"step {step} ran with lr {sorted(set(ev.lrs))} (the schedule starts at 0): not a finding"
        )
    notes += warm_up_lines([a for a in facts.lr_falls if a.warm_up])
    return notes + (warning_notes(ev.trace.warnings, step) if ev.trace else [])


@dataclass
class _Run:
    """What diagnose set up before the first step: the checks' settings and what it restores."""

    model: nn.Module
    optimizer: torch.optim.Optimizer
    steps: int
    frozen: tuple[str, ...]
    conditional: tuple[str, ...]
    max_grad_norm: float | None
    min_grad: float
    schedulers: list[Any]
    scaler: torch.amp.GradScaler | None
    compiled: bool
    intended: tuple[str, ...] = ()
    grad_enabled: bool = field(default_factory=torch.is_grad_enabled)
    unregistered: list[tuple[str, torch.Tensor]] = field(default_factory=list)
    copies: list[tuple[str, torch.Tensor]] = field(default_factory=list)  # non-leaf parameter copies held
    replaced: list[tuple[str, torch.Tensor]] = field(default_factory=list)  # replaced after DDP(...) wrapped
    held_graphs: list[torch.Tensor] = field(default_factory=list)  # attributes with a grad_fn before step 1
    optimizers: list[torch.optim.Optimizer] = field(default_factory=list)  # every optimizer the step uses
    last_runs: ModuleRuns | None = None  # which modules the last step ran, and how
    bad_at_start: list[str] = field(default_factory=list)  # parameters non-finite when diagnose began
    losses: list[float | None] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    skipped: int = 0
    first_scale: float | None = None
    start_epoch: int = 0  # the first scheduler's last_epoch when diagnose began
    first_lrs: list[float] | None = None  # the lrs diagnose's first step used
    advanced: list[int] = field(default_factory=list)  # scheduler steps each call of train_step took


def _walk_checklist(facts: StepFacts) -> tuple[Stage, Finding]:
    """The first stage whose check finds something, with its finding (advice filled in); OK if none."""
    for entry in CHECKLIST:
        finding = entry.check(facts)
        if finding is not None:
            finding.advice = finding.advice or ADVICE[entry.stage]
            return entry.stage, finding
    return Stage.OK, Finding([], advice=ADVICE[Stage.OK])


def _reports(run: _Run, saved: TrainingState, ev: Any) -> dict[str, Any]:
    """The reports behind the evidence: gradients, parameter changes, non-finite values."""
    has_params = next(run.model.parameters(), None) is not None  # a model of copies has none
    return {
        "gradients": classify_parameter_gradients(run.model, run.optimizer) if has_params else None,
        "changes": _changes(run.model, saved) if has_params else None,
        "non_finite": ev.watch,
    }


def _step(run: _Run, saved: TrainingState, train_step: Callable[[], Any], step: int) -> Diagnosis | None:
    """Run and check one step; the Diagnosis when a stage fails or this is the last step, else None."""
    epoch = _epoch(run.schedulers)
    carried = carried_graphs(run.model, run.held_graphs) if step > 1 else []  # left by earlier steps
    with ModuleRuns(run.model, run.optimizers) as modules:
        ev = run_probed_step(train_step, run.model, run.optimizer, saved, run.scaler, first=step == 1)
    fresh, run.last_runs = modules.made_anew(run.last_runs), modules
    run.losses.append(ev.loss_value)
    run.skipped += ev.skipped_by_scaler
    if step == 1:
        run.first_scale, run.start_epoch, run.first_lrs = ev.scale, epoch, ev.lrs
    ahead, falls = [], []
    run.advanced.append(_epoch(run.schedulers) - epoch)  # scheduler steps in this call, counted
    if run.schedulers and ev.lrs is not None:
        advanced = run.advanced[-1]
        ahead = lr_ahead(run.optimizer, run.schedulers, ev.lrs, run.start_epoch, advanced)
        if step == run.steps:  # only a step that passes everything else needs it; per batch: every call
            per_call = min(run.advanced)
            falls = lr_falls(run.optimizer, run.schedulers, ev.lrs, per_call, first_lrs=run.first_lrs)
    facts = StepFacts(
        ev, run.model, run.optimizer, run.frozen,
        max_grad_norm=run.max_grad_norm, min_grad=run.min_grad, grad_enabled_outside=run.grad_enabled,
        unregistered=run.unregistered, scheduled=bool(run.schedulers),
        all_skipped=step == run.steps and run.skipped == run.steps,
        step=step, skipped=run.skipped, first_scale=run.first_scale, lr_ahead=ahead, lr_falls=falls,
        copies=run.copies, bad_at_start=run.bad_at_start if step == 1 else [],
        carried=carried, replaced=run.replaced, fresh=fresh, runs=modules.runs,
        conditional=run.conditional, optimizers=run.optimizers,
        intended=run.intended, held=modules.held, final=step == run.steps,
    )  # fmt: skip
    stage, finding = _walk_checklist(facts)
    if stage is Stage.GRAD_NON_FINITE and ev.scale is not None:  # the finding counts the skips
        run.notes = [n for n in run.notes if "GradScaler skipped" not in n]
    else:
        run.notes += _notes(ev, step, facts)
    if stage is Stage.OK and step < run.steps:
        return None
    reports = _reports(run, saved, ev)
    lines = [e for e in finding.evidence if e] or [f"{run.steps} step(s) ran; losses {_losses(run.losses)}"]
    if run.compiled or bool(ev.watch and ev.watch.compiled):
        run.notes.append(_EAGER)
    checked, not_run = coverage(facts, CHECKLIST) if stage is Stage.OK else ([], [])
    return Diagnosis(
        stage=stage,
        evidence=lines + run.notes,
        advice=finding.advice,
        step=None if stage is Stage.OK else step,
        steps=run.steps,
        names=finding.names,
        losses=run.losses,
        reports=reports,
        error=ev.error,
        checked=checked,
        not_run=not_run,
        summary=finding.summary or "",
    )


def diagnose(
    train_step: Callable[[], Any],
    model: nn.Module,
    optimizer: torch.optim.Optimizer | Sequence[torch.optim.Optimizer],
    *,
    steps: int = 2,
    frozen: Iterable[str] = (),
    conditional: Iterable[str] = (),
    max_grad_norm: float | None = None,
    min_grad: float = VANISHING,
    schedulers: Iterable[Any] | None = None,
    scaler: torch.amp.GradScaler | None = None,
    intended: Iterable[str] = (),
) -> Diagnosis:
    """Run train_step `steps` times under instrumentation and name the first checklist stage that fails.

    train_step is your own zero-argument iteration (forward, loss, backward, optimizer.step()) returning
    the loss (or a tuple that starts with it). Every error it raises becomes a finding (BACKWARD_FAILED):
    where it was raised, what raised it, what to look at, and the error as `.error`; never re-raised.
    Parameters, .grad, buffers, optimizer state, RNG states, the optimizer's lr schedulers (found, or
    `schedulers=`) and the step's GradScaler (found in train_step's closure and globals, or `scaler=`)
    are restored afterwards, always; so are other optimizers the step uses (state, schedulers, params).
    Gradient statistics are divided by the scaler's scale. An lr of (about) 0 is looked ahead on a copy:
    a warm-up that rises next is no finding, a hold is. A compiled model runs eagerly: hooks see inside.
    Said with arguments: `frozen=` parameters or modules frozen on purpose, `conditional=` those that by
    design get no gradient at some steps (top-1 experts, stochastic depth), `intended=` modules or loss
    functions a maybe-intended finding names (shared weights, eval-mode BatchNorm, a trained target);
    `optimizer` may be a list (the first followed for lrs); `max_grad_norm` (default 1000 x max(1, |loss|)).
    """
    model, compiled = unwrap_compiled(model) if isinstance(model, nn.Module) else (model, False)
    optimizer, given = _validate(train_step, model, optimizer, steps, max_grad_norm, min_grad)
    run = _Run(
        model, optimizer, steps, _check_frozen(model, frozen),
        _check_frozen(model, conditional, "conditional"), max_grad_norm, min_grad,
        schedulers=_schedulers(optimizer, train_step, schedulers), scaler=_scaler(train_step, scaler),
        compiled=compiled, intended=_names(intended, "intended"),
    )  # fmt: skip
    run.unregistered, run.copies = stray_tensors(model)
    run.replaced = replaced_after_wrapping(model)
    run.held_graphs = [t for _, t in graph_attributes(model)]
    old = {id(t) for _, t in run.replaced}  # the wrapper holds them: named as replaced, not as strays
    run.unregistered = [(path, t) for path, t in run.unregistered if id(t) not in old]
    if next(model.parameters(), None) is None and not (run.unregistered or run.copies):
        require_module(model)  # nothing to diagnose: the clear error
    others = [*given, *(o for o in find_optimizers(train_step, optimizer) if all(o is not g for g in given))]
    run.optimizers = [optimizer, *others]
    saved = TrainingState(
        model, optimizer, [*run.schedulers, *(s for o in others for s in find_schedulers(o, train_step))],
        [run.scaler] if run.scaler else [], others,
    )  # fmt: skip
    run.bad_at_start = saved.non_finite_names()
    try:
        with run_eagerly():
            for step in range(1, steps + 1):
                result = _step(run, saved, train_step, step)
                if result is not None:
                    return result
        raise AssertionError("unreachable")  # pragma: no cover
    finally:
        saved.restore()


_EAGER = "the compiled model ran eagerly (torch.compiler.set_stance('force_eager')) so hooks see inside it"


def _names(given: Iterable[str], what: str) -> tuple[str, ...]:
    """Names given as a string or an iterable of non-empty strings, as a tuple."""
    items = (given,) if isinstance(given, str) else tuple(given)
    if not all(isinstance(n, str) and n for n in items):
        raise TypeError(f"expected {what} to hold module or function names, got {items!r}")
    return items


def _epoch(schedulers: list[Any]) -> int:
    """The first scheduler's last_epoch (0 without one)."""
    return int(getattr(schedulers[0], "last_epoch", 0)) if schedulers else 0


def _losses(losses: list[float | None]) -> str:
    return "[" + ", ".join("-" if v is None else f"{v:.4g}" for v in losses) + "]"
