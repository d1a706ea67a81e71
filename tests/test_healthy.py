"""The toolkit on correct training: each loop trains, diagnose says OK, the watch sees nothing, and a step
computes bit for bit the same with the toolkit as without it; diagnose leaves no trace."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import torch
from healthy import LOOPS, Healthy, Loop

from helpers import diagnose, watch_non_finite


def _optimizers(loop: Loop) -> list[torch.optim.Optimizer]:
    return list(loop.optimizer) if isinstance(loop.optimizer, (list, tuple)) else [loop.optimizer]


def _state(loop: Loop) -> dict[str, Any]:
    """Everything a step may change, copied: parameters, .grad, buffers, optimizer and scheduler
    state, the RNG."""
    model = loop.model
    state: dict[str, Any] = {f"param {n}": p.detach().clone() for n, p in model.named_parameters()}
    state |= {f"grad {n}": None if p.grad is None else p.grad.clone() for n, p in model.named_parameters()}
    state |= {f"buffer {n}": b.clone() for n, b in model.named_buffers()}
    for i, optimizer in enumerate(_optimizers(loop)):
        state[f"optimizer {i}"] = copy.deepcopy(optimizer.state_dict())
    for i, scheduler in enumerate(loop.schedulers):
        state[f"scheduler {i}"] = copy.deepcopy(scheduler.state_dict())
    state["rng"] = torch.get_rng_state()
    state["lrs"] = [g["lr"] for o in _optimizers(loop) for g in o.param_groups]
    return state


def _same(a: Any, b: Any) -> bool:
    """Bit for bit: tensors equal with the same NaNs, containers element by element."""
    if isinstance(a, torch.Tensor):
        if not isinstance(b, torch.Tensor) or a.layout != b.layout:
            return False
        if a.is_sparse:
            a, b = a.coalesce().to_dense(), b.coalesce().to_dense()
        return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a.view(-1), b.view(-1))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    return [k for k in a if not _same(a[k], b.get(k))]


def _diagnose(loop: Loop) -> Any:
    given = loop.optimizer if loop.given is None else loop.given
    return diagnose(loop.step, loop.model, given, **loop.options)


@pytest.fixture(params=LOOPS, ids=[h.key for h in LOOPS])
def healthy(request: pytest.FixtureRequest) -> Healthy:
    return request.param


def test_there_are_at_least_thirty_kinds() -> None:
    assert len(LOOPS) >= 30
    assert len({h.key for h in LOOPS}) == len(LOOPS)


def test_the_loop_trains(healthy: Healthy) -> None:
    loop = healthy.build()
    before = loop.metric()
    if healthy.train_steps == 0:  # trained to convergence when built
        assert before < 1e-8, before
        return
    for _ in range(healthy.train_steps):
        loop.step()
    after = loop.metric()
    assert after < before, f"{healthy.key}: validation metric {before:.4g} -> {after:.4g}"


def test_diagnose_says_ok(healthy: Healthy) -> None:
    found = _diagnose(healthy.build())
    assert found.ok, f"{healthy.key}:\n{found!r}"


def test_the_watch_sees_nothing(healthy: Healthy) -> None:
    loop = healthy.build()
    with watch_non_finite(loop.model) as watch:
        for _ in range(3):
            loop.step()
    assert watch.events == [], f"{healthy.key}:\n{watch!r}"


def test_the_toolkit_leaves_the_step_unchanged(healthy: Healthy) -> None:
    """Plain steps against diagnose (which must leave no trace) then the same steps under the watch."""
    plain = healthy.build()
    plain_losses = [plain.step() for _ in range(3)]
    watched = healthy.build()
    before = _state(watched)
    counters = copy.deepcopy(list(watched.counters))
    found = _diagnose(watched)
    after = _state(watched)
    assert found.losses == [float(v) for v in plain_losses[: len(found.losses)]], healthy.key  # as computed
    assert not _differences(before, after), (
        f"{healthy.key}: diagnose left a trace in {_differences(before, after)}"
    )
    for kept, now in zip(counters, watched.counters):  # the loop's own Python state is the user's to reset
        now.clear()
        now.update(kept)
    watched_losses = []
    for _ in range(3):
        with watch_non_finite(watched.model):
            watched_losses.append(watched.step())
    assert _same(plain_losses, watched_losses), f"{healthy.key}: {plain_losses} != {watched_losses}"
    changed = _differences(_state(plain), _state(watched))
    assert not changed, f"{healthy.key}: the watched steps computed other {changed}"


def test_the_readme_states_the_false_alarm_count() -> None:
    text = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    figure = re.search(r"False alarms: (\d+) on (\d+) healthy training loops", text)
    assert figure, "README states the false-alarm count beside the field corpus figure"
    assert (int(figure.group(1)), int(figure.group(2))) == (0, len(LOOPS))
