"""diagnose on schedules that follow their own design, and scheduler steps per call counted."""

from __future__ import annotations

import pytest
import torch
from field_corpus.case import mlp, regression
from torch import nn

from helpers import Stage, diagnose
from helpers.doctor.lookahead import warms_up

sched = torch.optim.lr_scheduler


def _sgd() -> torch.optim.Optimizer:
    return torch.optim.SGD(nn.Linear(2, 1).parameters(), lr=0.1)


def _warm_up_then_decay(k: int) -> float:
    return k / 10 if k < 10 else max(0.0, (100 - k) / 90)


def test_a_schedule_that_rises_by_design_is_known_from_its_own_definition() -> None:
    opt = _sgd()
    late = sched.LambdaLR(opt, _warm_up_then_decay)
    for _ in range(50):
        opt.step()
        late.step()  # in its decay: the rise is in its past only
    opt = _sgd()
    assert warms_up(late)
    assert warms_up(sched.OneCycleLR(_sgd(), max_lr=0.1, total_steps=100))
    assert warms_up(sched.LinearLR(_sgd(), start_factor=0.1, end_factor=1.0))
    assert warms_up(sched.SequentialLR(opt, [sched.LinearLR(opt, 0.1), sched.CosineAnnealingLR(opt, 9)], [5]))
    assert not warms_up(sched.LinearLR(_sgd(), start_factor=1.0, end_factor=0.1))
    assert not warms_up(sched.CosineAnnealingLR(_sgd(), T_max=10))
    assert not warms_up(sched.LambdaLR(_sgd(), lambda k: 0.9**k))


@pytest.mark.parametrize("every", [1, 2, 3])
def test_scheduler_steps_per_call_are_counted(every: int) -> None:
    """CosineAnnealingLR(T_max=10) falls to 0 in 10 scheduler steps: stepped at every call it is meant
    per epoch and stepped per batch; stepped at every `every` calls (an epoch), it is not."""
    x, y = regression()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = sched.CosineAnnealingLR(optimizer, T_max=10)
    calls = {"n": 0}

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        calls["n"] += 1
        if calls["n"] % every == 0:
            scheduler.step()
        return loss

    found = diagnose(step, model, optimizer, steps=3)
    if every == 1:
        assert found.stage is Stage.PARAMS_NOT_UPDATED
        assert "CosineAnnealingLR is stepped 1 time(s) per call of train_step" in found.evidence[0]
    else:
        assert found.ok, repr(found)
