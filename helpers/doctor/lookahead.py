"""Look ahead in a learning-rate schedule, on a copy: when does a learning rate of (about) 0 rise?

About 0: at most NEAR_ZERO times the group's initial lr (a LinearLR warm-up with start_factor
1e-8 updates nothing a float32 parameter can show, just as lr 0).

The schedulers are deep-copied onto a stand-in for the optimizer that holds only the param
groups' settings (no parameters, no optimizer state), so stepping the copies changes nothing
the caller holds and copies no tensor of the model.
"""

from __future__ import annotations

import copy
import itertools
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch

__all__ = [
    "FALLS_TO",
    "FALL_WINDOW",
    "NEAR_ZERO",
    "WINDOW",
    "LrAhead",
    "LrFall",
    "lr_ahead",
    "lr_falls",
    "lrs_ahead",
    "near_zero",
    "warms_up",
]

WINDOW = 1000  # scheduler steps looked ahead
NEAR_ZERO = 1e-6  # an lr at most this times the group's initial lr counts as 0
ReduceLROnPlateau = torch.optim.lr_scheduler.ReduceLROnPlateau


@dataclass(frozen=True)
class LrAhead:
    """A param group whose step ran at lr 0, and what its schedule does next."""

    group: int
    scheduler: str  # the (first) scheduler's class name
    start: int  # its last_epoch when diagnose began
    step_lr: float  # the lr the step used: 0 or about 0
    rises_next: bool  # lr is above about 0 at the next scheduler step (a warm-up from 0)
    first_nonzero: int | None  # the last_epoch at which lr is first above about 0; None: not in WINDOW
    lr: float  # that lr

    def __repr__(self) -> str:
        when = "never within the window" if self.first_nonzero is None else f"at step {self.first_nonzero}"
        return f"LrAhead(group {self.group}, {self.scheduler}: lr non-zero {when}, lr {self.lr:g})"


class _GroupsOnly:
    """What a scheduler reads from its optimizer: param_groups (without parameters) and defaults."""

    _opt_called = True  # the scheduler's ordering warnings look for these

    def __init__(self, optimizer: torch.optim.Optimizer) -> None:
        self.param_groups = [
            {k: copy.deepcopy(v) for k, v in g.items() if k != "params"} | {"params": []}
            for g in optimizer.param_groups
        ]
        self.defaults = copy.deepcopy(optimizer.defaults)

    def step(self) -> None:
        """Never called: present because schedulers check that it exists."""

    step._wrapped_by_lr_sched = True  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"_GroupsOnly({len(self.param_groups)} groups)"


def _lr(group: dict[str, Any]) -> float:
    return float(group.get("lr", 0.0))


def near_zero(lr: float, group: dict[str, Any]) -> bool:
    """lr is 0, or at most NEAR_ZERO times the group's initial lr (set by every LR scheduler)."""
    return lr == 0.0 or abs(lr) <= NEAR_ZERO * abs(float(group.get("initial_lr", 0.0)))


def lrs_ahead(
    optimizer: torch.optim.Optimizer, schedulers: Sequence[Any], window: int = WINDOW
) -> Iterator[tuple[int | None, list[float]]]:
    """(the first copy's last_epoch, each group's lr) at each of the next `window` scheduler steps,
    stepped on copies.

    Stops early where the schedulers cannot be copied or a schedule ends (OneCycleLR past
    total_steps); nothing the caller holds is stepped or copied beyond the groups' settings.
    """
    stand_in = _GroupsOnly(optimizer)
    memo: dict[int, Any] = {id(optimizer): stand_in}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            copies = [copy.deepcopy(s, memo) for s in schedulers]
    except Exception:  # a scheduler that cannot be copied cannot be looked ahead
        return
    for _ in range(window):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the copies step without optimizer.step(): the point
                for s in copies:
                    s.step()
        except Exception:  # a schedule that ends: unknown beyond
            return
        yield getattr(copies[0], "last_epoch", None), [_lr(g) for g in stand_in.param_groups]


def lr_ahead(
    optimizer: torch.optim.Optimizer,
    schedulers: Sequence[Any],
    step_lrs: Sequence[float],
    start: int,
    advanced: int,
    window: int = WINDOW,
) -> list[LrAhead]:
    """For each param group whose step used lr (about) 0: when its schedule gives a larger lr.

    `advanced`: how many times the step itself stepped the schedulers (0 when they are stepped
    once an epoch, outside the step). The live lr is the next one when the step advanced them;
    further values come from copies (lrs_ahead). Schedulers that need a metric
    (ReduceLROnPlateau), cannot be copied, or end before the lr rises are not looked ahead:
    nothing is said for them.
    """
    groups = optimizer.param_groups
    zero = [i for i, lr in enumerate(step_lrs) if i < len(groups) and near_zero(lr, groups[i])]
    if not zero or not schedulers or any(isinstance(s, ReduceLROnPlateau) for s in schedulers):
        return []
    name = type(schedulers[0]).__name__
    epoch = getattr(schedulers[0], "last_epoch", start)
    found: dict[int, tuple[bool, int | None, float]] = {}
    for i in zero:
        live = _lr(groups[i])
        if advanced >= 1 and not near_zero(live, groups[i]):
            found[i] = (advanced == 1, epoch, live)
    pending = [i for i in zero if i not in found]
    looked = 0
    for k, (at, lrs) in enumerate(lrs_ahead(optimizer, schedulers, window) if pending else (), start=1):
        looked = k
        for i in [i for i in pending if not near_zero(lrs[i], groups[i])]:
            found[i] = (advanced == 0 and k == 1, epoch + k if at is None else at, lrs[i])
            pending.remove(i)
        if not pending:
            break
    unknown = set(pending) if pending and looked < window else set()  # stopped before the window ended
    return [
        LrAhead(i, name, start, step_lrs[i], *found.get(i, (False, None, 0.0)))  # type: ignore[arg-type]
        for i in zero
        if i not in unknown
    ]


FALL_WINDOW = 200  # scheduler steps looked ahead for a learning rate that falls toward 0
FALLS_TO = 1e-3  # toward 0: at most this fraction of the lr the step used


@dataclass(frozen=True)
class LrFall:
    """A param group whose schedule, stepped by train_step itself, drives its lr toward 0 soon."""

    group: int
    scheduler: str
    per_call: int  # scheduler steps per call of train_step
    lr_now: float
    lr_then: float
    calls: int  # calls of train_step until lr is at most FALLS_TO of lr_now
    warm_up: bool = False  # the lr rose first (in diagnose's steps or ahead): a schedule sized in steps

    def __repr__(self) -> str:
        fall = f"{self.lr_now:g} -> {self.lr_then:g}"
        after = ", after a warm-up" if self.warm_up else ""
        return f"LrFall(group {self.group}, {self.scheduler}: {fall} in {self.calls} calls{after})"


_sched = torch.optim.lr_scheduler
SAMPLES = 1000  # values of a LambdaLR's factor read, from its step 0 to where it is


def warms_up(scheduler: Any) -> bool:
    """Whether a schedule's own design rises before it falls (a warm-up, so a schedule counted in
    optimizer steps): OneCycleLR always; LinearLR from a lower factor to a higher one; a LambdaLR whose
    factor rose between its step 0 and now; SequentialLR and ChainedScheduler when one of theirs does."""
    if isinstance(scheduler, _sched.OneCycleLR):
        return True
    if isinstance(scheduler, _sched.LinearLR):
        return scheduler.start_factor < scheduler.end_factor
    if isinstance(scheduler, (_sched.SequentialLR, _sched.ChainedScheduler)):
        return any(warms_up(s) for s in scheduler._schedulers)
    if isinstance(scheduler, _sched.LambdaLR):
        last = max(1, int(scheduler.last_epoch))
        epochs = sorted({*range(0, last + 1, max(1, last // SAMPLES)), last})
        try:
            factors = [[float(f(e)) for e in epochs] for f in scheduler.lr_lambdas]
        except Exception:  # a factor that cannot be read back: no claim
            return False
        return any(b > a for values in factors for a, b in itertools.pairwise(values))
    return False


def lr_falls(
    optimizer: torch.optim.Optimizer,
    schedulers: Sequence[Any],
    step_lrs: Sequence[float],
    per_call: int,
    window: int = FALL_WINDOW,
    first_lrs: Sequence[float] | None = None,
) -> list[LrFall]:
    """Param groups whose lr falls to at most FALLS_TO of the lr the step used within `window`
    scheduler steps, when train_step steps the schedulers itself (`per_call` >= 1 times a call).

    A schedule sized for a whole run of many batches falls that far only after thousands of
    steps; one meant per epoch and stepped per batch falls within a fraction of an epoch.
    A fall that follows a rise (the lr rose from `first_lrs`, the lrs of diagnose's first step,
    rises ahead before it falls, or rose before diagnose began: warms_up) is a warm-up then a
    decay, a schedule counted in optimizer steps by design (Hugging Face's
    get_linear_schedule_with_warmup, OneCycleLR): `warm_up` is set.
    """
    if per_call < 1 or not schedulers or any(isinstance(s, ReduceLROnPlateau) for s in schedulers):
        return []
    name = type(schedulers[0]).__name__
    pending = {i: lr for i, lr in enumerate(step_lrs) if lr > 0.0}
    first = list(first_lrs or [])
    designed = any(warms_up(s) for s in schedulers)  # the schedule rose before diagnose began
    rose = {i: designed or (i < len(first) and first[i] < lr) for i, lr in pending.items()}
    found: list[LrFall] = []
    for k, (_, lrs) in enumerate(lrs_ahead(optimizer, schedulers, window) if pending else (), start=1):
        for i in [i for i in pending if i < len(lrs)]:
            rose[i] = rose[i] or lrs[i] > pending[i]
            if abs(lrs[i]) <= FALLS_TO * pending[i]:
                calls = max(1, -(-k // per_call))
                found.append(LrFall(i, name, per_call, pending.pop(i), lrs[i], calls, warm_up=rose[i]))
        if not pending:
            break
    return found
