"""diagnose(): the stage it names for every scenario of the issue, and that it leaves no trace."""

from __future__ import annotations

import copy
import gc
import random
import weakref

import numpy as np
import pytest
import torch
from field_corpus.case import loss_step, plain_step
from torch import nn

from helpers import Diagnosis, Stage, TinyNet, diagnose, make_tiny_problem

X, Y = make_tiny_problem(seed=0)


def tiny(bug: str | None = None, *, lr: float = 1e-2, seed: int = 0):
    """(train_step, model, optimizer) for TinyNet with one named bug."""
    model = TinyNet(seed=seed)
    if bug == "B":
        for p in model.fc1.parameters():
            p.requires_grad_(False)
    if bug == "all_frozen":
        model.requires_grad_(False)
    params = model.fc2.parameters() if bug == "C" else model.parameters()
    optimizer = torch.optim.Adam(params, lr=0.0 if bug == "lr0" else lr)
    if bug == "replaced":
        model.fc1 = nn.Linear(4, 8)  # after the optimizer was built

    def forward() -> torch.Tensor:
        if bug == "hidden_detached":
            return model.fc2(torch.relu(model.fc1(X)).detach())
        if bug == "inplace":
            h = torch.sigmoid(model.fc1(X))  # sigmoid saves its output for backward
            h.mul_(2.0)
            return model.fc2(h)
        if bug == "sqrt":
            h = model.fc1(X)
            h = torch.where(h > 0, torch.sqrt(h), torch.zeros_like(h))
            return model.fc2(h)
        return model(X)

    def step() -> torch.Tensor:
        if bug != "D":
            optimizer.zero_grad()
        if bug == "no_grad":
            with torch.no_grad():
                out = forward()
        else:
            out = forward()
        if bug == "A":
            out = out.detach()
        if bug == "E":
            out = out / 0
        loss = ((out - Y) ** 2).mean()
        if bug == "item":
            loss = torch.tensor(loss.item(), requires_grad=True)
        if bug == "numpy":
            rebuilt = torch.from_numpy(out.detach().numpy().copy()).requires_grad_()
            loss = ((rebuilt - Y) ** 2).mean()
        if bug == "non_scalar":
            loss = (out - Y) ** 2
        loss.backward()
        optimizer.step()
        return loss

    return step, model, optimizer


@pytest.mark.parametrize(
    ("bug", "stage", "step"),
    [
        (None, Stage.OK, None),
        ("A", Stage.LOSS_NOT_IN_GRAPH, 1),
        ("B", Stage.PARAMS_FROZEN, 1),
        ("C", Stage.NOT_IN_OPTIMIZER, 1),
        ("D", Stage.GRADS_ACCUMULATING, 2),
        ("E", Stage.FORWARD_NON_FINITE, 1),
        ("no_grad", Stage.GRAD_MODE_DISABLED, 1),
        ("lr0", Stage.PARAMS_NOT_UPDATED, 1),
        ("replaced", Stage.NOT_IN_OPTIMIZER, 1),
        ("item", Stage.LOSS_NOT_IN_GRAPH, 1),
        ("numpy", Stage.LOSS_NOT_IN_GRAPH, 1),
        ("hidden_detached", Stage.GRAD_MISSING, 1),
        ("inplace", Stage.BACKWARD_FAILED, 1),
        ("non_scalar", Stage.BACKWARD_FAILED, 1),
        ("sqrt", Stage.GRAD_NON_FINITE, 1),
        ("all_frozen", Stage.PARAMS_FROZEN, 1),
    ],
)
def test_stage_for_each_scenario(bug: str | None, stage: Stage, step: int | None) -> None:
    d = diagnose(*tiny(bug))
    assert (d.stage, d.step) == (stage, step), repr(d)
    assert d.advice and d.evidence


def test_evidence_names_the_parameters_involved() -> None:
    assert diagnose(*tiny("C")).names == ["fc1.weight", "fc1.bias"]
    assert diagnose(*tiny("B")).names == ["fc1.weight", "fc1.bias"]
    assert diagnose(*tiny("hidden_detached")).names == ["fc1.weight", "fc1.bias"]
    inplace = diagnose(*tiny("inplace"))
    assert "modified by an inplace operation" in inplace.evidence[0]
    assert isinstance(inplace.error, RuntimeError)
    sqrt = diagnose(*tiny("sqrt"))
    assert any("first non-finite backward tensor" in e for e in sqrt.evidence)
    assert sqrt.reports["non_finite"].first.phase == "backward"


def test_a_nan_gradient_the_loss_makes_is_said_to_enter_through_the_output() -> None:
    model = TinyNet(seed=0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def step() -> torch.Tensor:  # a distance loss whose sqrt meets a distance of 0
        optimizer.zero_grad()
        out = model(X)
        loss = (out - out.detach()).pow(2).sum(1).sqrt().mean()
        loss.backward()
        optimizer.step()
        return loss

    outside = diagnose(step, model, optimizer)
    assert outside.stage is Stage.GRAD_NON_FINITE
    assert "first non-finite backward tensor: backward #1: grad output of the model" in outside.evidence
    assert any(e.startswith("it entered the model through the gradient") for e in outside.evidence)
    inside = diagnose(*tiny("sqrt"))  # the NaN is born in the model's own sqrt
    assert not any("entered the model" in e for e in inside.evidence)


def test_eval_mode_and_diagnose_called_under_no_grad() -> None:
    step, model, optimizer = tiny()
    model.eval()
    assert diagnose(step, model, optimizer).stage is Stage.OK
    assert not model.training

    def switches_to_train() -> torch.Tensor:
        model.train()
        return step()

    assert diagnose(switches_to_train, model, optimizer).stage is Stage.OK
    assert not model.training and not model.fc1.training  # the mode is put back as it was
    with torch.no_grad():
        d = diagnose(*tiny())
    assert d.stage is Stage.GRAD_MODE_DISABLED


def test_frozen_on_purpose_is_not_a_finding_and_matches_on_dot_boundaries() -> None:
    assert diagnose(*tiny("B"), frozen=["fc1"]).stage is Stage.OK
    assert diagnose(*tiny("B"), frozen=("fc1.weight", "fc1.bias")).stage is Stage.OK

    class Wide(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc1, self.fc10 = nn.Linear(2, 2), nn.Linear(2, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.fc10(self.fc1(x))

    torch.manual_seed(0)
    model = Wide()
    model.requires_grad_(False)
    model.fc1.weight.requires_grad_(True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(3, 2)

    step = loss_step(optimizer, lambda: model(x).pow(2).mean())

    d = diagnose(step, model, optimizer, frozen=["fc1"])
    assert d.stage is Stage.PARAMS_FROZEN and d.names == ["fc10.weight", "fc10.bias"]
    assert diagnose(step, model, optimizer, frozen=["fc1", "fc10"]).stage is Stage.OK
    with pytest.raises(ValueError, match="frozen names no parameter"):
        diagnose(step, model, optimizer, frozen=["fc"])


def test_magnitude_thresholds_are_arguments() -> None:
    d = diagnose(*tiny(), max_grad_norm=1e-3)
    assert d.stage is Stage.GRAD_MAGNITUDE and "max_grad_norm" in d.evidence[0]
    d = diagnose(*tiny(), min_grad=1e6)
    assert d.stage is Stage.GRAD_MAGNITUDE and "min_grad" in d.evidence[0]


def test_accumulating_over_micro_batches_inside_one_step_is_not_a_finding() -> None:
    model = TinyNet(seed=0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        for half in (slice(0, 8), slice(8, 16)):
            loss = ((model(X[half]) - Y[half]) ** 2).mean() / 2
            loss.backward()
        optimizer.step()
        return loss

    assert diagnose(step, model, optimizer).stage is Stage.OK


def test_earliest_failure_wins_across_steps() -> None:
    """A NaN gradient at step 1 makes step 2's forward NaN; step 1's stage is the diagnosis."""
    step, model, optimizer = tiny("sqrt", lr=1.0)
    d = diagnose(step, model, optimizer, steps=3)
    assert (d.stage, d.step) == (Stage.GRAD_NON_FINITE, 1)


def test_backward_through_a_freed_graph_at_the_second_step() -> None:
    model = TinyNet(seed=0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    carried = {"h": torch.zeros(16, 1)}

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        carried["h"] = carried["h"] + model(X)  # state carried over without detach
        loss = ((carried["h"] - Y) ** 2).mean()
        loss.backward()
        optimizer.step()
        return loss

    d = diagnose(step, model, optimizer)
    assert (d.stage, d.step) == (Stage.BACKWARD_FAILED, 2)
    assert "second time" in d.evidence[0]


def _snapshot(model: nn.Module, optimizer: torch.optim.Optimizer) -> dict[str, object]:
    return {
        "params": [p.detach().clone() for p in model.parameters()],
        "param_ids": [id(p) for p in model.parameters()],
        "grads": [None if p.grad is None else p.grad.clone() for p in model.parameters()],
        "grad_objects": [p.grad for p in model.parameters()],  # held: diagnose gives these back
        "state": {
            id(p): {k: v.clone() if torch.is_tensor(v) else v for k, v in s.items()}
            for p, s in optimizer.state.items()
        },
        "lr": [g["lr"] for g in optimizer.param_groups],
        "torch_rng": torch.get_rng_state(),
        "py_rng": random.getstate(),
        "np_rng": np.random.get_state()[1].copy(),
        "hooks": sum(
            len(m._forward_hooks) + len(m._forward_pre_hooks) + len(m._backward_hooks)
            for m in model.modules()
        )
        + sum(len(p._backward_hooks or {}) for p in model.parameters())
        + len(optimizer._optimizer_step_pre_hooks),
    }


def _assert_same(before: dict[str, object], after: dict[str, object]) -> None:
    for a, b in zip(before["params"], after["params"]):
        assert torch.equal(a, b)
    assert before["param_ids"] == after["param_ids"]
    assert all(a is b for a, b in zip(before["grad_objects"], after["grad_objects"]))
    for a, b in zip(before["grads"], after["grads"]):
        assert (a is None and b is None) or torch.equal(a, b)
    assert before["state"].keys() == after["state"].keys()
    for key, entry in before["state"].items():
        for k, v in entry.items():
            assert (
                torch.equal(v, after["state"][key][k]) if torch.is_tensor(v) else v == after["state"][key][k]
            )
    assert before["lr"] == after["lr"]
    assert torch.equal(before["torch_rng"], after["torch_rng"])
    assert before["py_rng"] == after["py_rng"]
    assert np.array_equal(before["np_rng"], after["np_rng"])
    assert before["hooks"] == after["hooks"]


def _warm(model: nn.Module, optimizer: torch.optim.Optimizer) -> None:
    """One correct step first: Adam state and .grad exist before the diagnosis."""
    optimizer.zero_grad()
    ((model(X) - Y) ** 2).mean().backward()
    optimizer.step()
    assert optimizer.state


@pytest.mark.parametrize("bug", [None, "D", "inplace", "shape"])
def test_leaves_no_trace_also_when_train_step_raises(bug: str | None) -> None:
    step, model, optimizer = tiny(None if bug == "shape" else bug)
    _warm(model, optimizer)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)

    def user_step() -> torch.Tensor:
        random.random(), np.random.rand(), torch.rand(1)  # the step consumes every RNG
        if bug == "shape":
            model(torch.randn(3, 5))  # not an autograd error: a finding all the same
        loss = step()
        scheduler.step()
        return loss

    torch.manual_seed(1)
    before = _snapshot(model, optimizer)
    found = diagnose(user_step, model, optimizer)
    if bug == "shape":
        assert found.stage is Stage.BACKWARD_FAILED
        assert isinstance(found.error, RuntimeError) and "shapes cannot be multiplied" in str(found.error)
        assert "raised in the forward: the forward of module 'fc1' (Linear(" in "\n".join(found.evidence)
    _assert_same(before, _snapshot(model, optimizer))


def _gan(where: str):
    """A warmed-up GAN step: G is the model diagnose gets, D lives outside it with its own Adam and
    scheduler. `where` "closure": the step refers to opt_d; "dict": it reaches it only through a dict."""
    torch.manual_seed(0)
    g, d = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 3)), nn.Sequential(nn.Linear(3, 1))
    opt_g, opt_d = torch.optim.Adam(g.parameters(), lr=1e-2), torch.optim.Adam(d.parameters(), lr=1e-2)
    sched_d = torch.optim.lr_scheduler.StepLR(opt_d, step_size=1, gamma=0.5)
    noise, real = torch.randn(8, 2), torch.randn(8, 3)
    held = {"opt_d": opt_d, "sched_d": sched_d}

    def step() -> torch.Tensor:
        other = opt_d if where == "closure" else held["opt_d"]
        other.zero_grad()
        loss_d = d(real).mean() - d(g(noise).detach()).mean()
        loss_d.backward()
        other.step()
        (sched_d if where == "closure" else held["sched_d"]).step()
        opt_g.zero_grad()
        loss_g = d(g(noise)).mean()
        loss_g.backward()
        opt_g.step()
        return loss_g

    step()  # Adam moments, step counts and .grad exist in both optimizers before the diagnosis
    return step, g, opt_g, d, opt_d, sched_d


@pytest.mark.parametrize("where", ["closure", "dict"])
def test_another_optimizer_its_state_schedule_and_parameters_outside_the_model_are_restored(
    where: str,
) -> None:
    step, g, opt_g, d, opt_d, sched_d = _gan(where)
    before = _snapshot(g, opt_g), _snapshot(d, opt_d), sched_d.last_epoch
    assert diagnose(step, g, opt_g).ok
    after = _snapshot(g, opt_g), _snapshot(d, opt_d), sched_d.last_epoch
    _assert_same(before[0], after[0])
    if where == "dict":  # found only at its first step, after backward wrote D's .grad
        for snapshot in (before[1], after[1]):
            snapshot["grads"] = snapshot["grad_objects"] = []
    _assert_same(before[1], after[1])
    assert before[2] == after[2] == 1


def test_gradients_nobody_holds_are_freed_during_the_step_and_given_back_by_value() -> None:
    # One copy of the gradients, not two: diagnose must not keep the old .grad tensors alive
    # beside its copy once the step's zero_grad drops them (set_to_none, torch's default).
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    ((model(X) - Y) ** 2).mean().backward()
    optimizer.step()
    values = [p.grad.clone() for p in model.parameters()]
    refs = [weakref.ref(p.grad) for p in model.parameters()]
    alive_after_zero_grad: list[int] = []

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        gc.collect()
        alive_after_zero_grad.append(sum(r() is not None for r in refs))
        loss = ((model(X) - Y) ** 2).mean()
        loss.backward()
        optimizer.step()
        return loss

    assert diagnose(step, model, optimizer).ok
    assert alive_after_zero_grad == [0, 0]
    assert all(torch.equal(p.grad, v) for p, v in zip(model.parameters(), values))


class _Uncopyable:
    """An lr_lambda object that refuses deepcopy (it holds, say, a lock or a file)."""

    def __call__(self, step: int) -> float:
        return float(step // 100)

    def __deepcopy__(self, memo: dict) -> _Uncopyable:
        raise TypeError("cannot copy")


def _diagnose_with(model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: object) -> Diagnosis:
    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = ((model(X) - Y) ** 2).mean()
        loss.backward()
        optimizer.step()
        scheduler.step()
        return loss

    return diagnose(step, model, optimizer, steps=1)


def test_a_schedule_that_cannot_be_copied_or_ends_is_not_looked_ahead() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    uncopyable = torch.optim.lr_scheduler.LambdaLR(optimizer, _Uncopyable())
    verdict = _diagnose_with(model, optimizer, uncopyable)
    assert verdict.ok and "the schedule starts at 0" in verdict.evidence[-1], verdict
    ends = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.0, total_steps=5)  # 0, then raises
    verdict = _diagnose_with(model, optimizer, ends)
    assert verdict.ok and "the schedule starts at 0" in verdict.evidence[-1], verdict
    held = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: s // 100)  # the same, copyable
    assert _diagnose_with(model, optimizer, held).stage is Stage.PARAMS_NOT_UPDATED


def _warm_up_then_decay(step: int, warm: int = 3, total: int = 100) -> float:
    """Hugging Face's linear schedule with warm-up: 0 at step 0, 1 at `warm`, 0 again at `total`."""
    return step / warm if step < warm else max(0.0, (total - step) / (total - warm))


def _scheduled_per_call(factor):
    """A model, its SGD and a LambdaLR(factor) stepped at every call of the returned step."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, factor)

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = ((model(X) - Y) ** 2).mean()
        loss.backward()
        optimizer.step()
        schedule.step()
        return loss

    return model, optimizer, schedule, step


@pytest.mark.parametrize("steps", [2, 5])  # the rise ahead of the last step, or only before it
def test_a_warm_up_then_a_decay_to_zero_is_a_note_a_schedule_meant_per_epoch_is_a_finding(steps: int) -> None:
    model, optimizer, schedule, step = _scheduled_per_call(_warm_up_then_decay)
    verdict = diagnose(step, model, optimizer, steps=steps)
    assert verdict.ok, verdict
    assert any("warms up, then the learning rate of param group 0 falls" in e for e in verdict.evidence)
    assert schedule.last_epoch == 0 and optimizer.param_groups[0]["lr"] == 0.0
    model, optimizer, _, step = _scheduled_per_call(lambda s: _warm_up_then_decay(s + 3))  # the decay alone
    verdict = diagnose(step, model, optimizer, steps=steps)
    assert verdict.stage is Stage.PARAMS_NOT_UPDATED and "once per epoch" in verdict.advice, verdict
    assert not any("warms up" in e for e in verdict.evidence), verdict


class _Nudged(nn.Module):
    """A Linear plus a parameter whose gradient is 1e-9 of the output's: SGD's update of it is below
    float32's spacing at 1.0, so no step can change it (as a bias before a BatchNorm)."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc = nn.Linear(4, 1)
        self.offset = nn.Parameter(torch.ones(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x) + 1e-9 * self.offset


@pytest.mark.parametrize("lr", [0.1, 0.0])
def test_a_gradient_at_rounding_level_is_not_expected_to_move_its_parameter(lr: float) -> None:
    model = _Nudged()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)

    step = plain_step(model, optimizer, X, Y)

    found = diagnose(step, model, optimizer)
    if lr:
        assert found.stage is Stage.OK, found
        before = model.offset.detach().clone()
        step()  # the update really is lost to rounding
        assert torch.equal(model.offset.detach(), before) and model.offset.grad.abs().item() > 0
    else:  # a real bug beside it is still found, and names only what should have moved
        assert found.stage is Stage.PARAMS_NOT_UPDATED and found.names == ["fc.weight", "fc.bias"], found


def test_buffers_are_restored() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.Linear(3, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    stats = [b.clone() for b in model.buffers()]

    step = plain_step(model, optimizer, X, Y)

    assert diagnose(step, model, optimizer).stage is Stage.OK
    assert len(stats) == len(list(model.buffers())) == 3  # running mean, running var, batch count
    assert all(torch.equal(a, b) for a, b in zip(stats, model.buffers()))


def _real_model_step(kind: str, train: bool):
    torch.manual_seed(0)
    if kind == "transformer":
        layer = nn.TransformerEncoderLayer(
            d_model=16, nhead=2, dim_feedforward=32, dropout=0.1, batch_first=True
        )
        body = nn.TransformerEncoder(layer, num_layers=2)
        x = torch.randn(4, 5, 16)
    else:
        body = nn.LSTM(input_size=16, hidden_size=16, num_layers=2, dropout=0.1, batch_first=True)
        x = torch.randn(4, 5, 16)
    model = nn.ModuleDict({"body": body, "head": nn.Linear(16, 1)})
    target = torch.randn(4, 1)
    model.train(train)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        out = model["body"](x)
        out = out[0] if isinstance(out, tuple) else out
        loss = ((model["head"](out[:, -1]) - target) ** 2).mean()
        loss.backward()
        optimizer.step()
        return loss

    return step, model, optimizer


@pytest.mark.parametrize("kind", ["transformer", "lstm"])
@pytest.mark.parametrize("train", [True, False])
def test_real_torch_models_are_ok_in_train_and_eval(kind: str, train: bool) -> None:
    step, model, optimizer = _real_model_step(kind, train)
    if not train:  # dropout left off in a training step is a finding, unless it is said to be intended
        found = diagnose(step, model, optimizer)
        assert found.stage is Stage.GRAD_MODE_DISABLED and "ran in eval mode" in repr(found), repr(found)
    first = diagnose(step, model, optimizer, intended=() if train else ["body"])
    assert first.stage is Stage.OK, repr(first)
    again = diagnose(step, model, optimizer, intended=["body"])  # RNG and state restored: the same masks
    assert again.losses == first.losses


def test_repr_html_and_bad_input() -> None:
    d = diagnose(*tiny("C"))
    assert isinstance(d, Diagnosis) and not d.ok
    text = repr(d)
    assert text.startswith("Diagnosis: NOT_IN_OPTIMIZER at step 1 of 2")
    assert "fc1.weight" in text and "advice:" in text
    page = d._repr_html_()
    assert "NOT_IN_OPTIMIZER" in page and "fc1.weight" in page and "<li>" in page
    ok = diagnose(*tiny())
    assert ok.ok and ok.step is None and repr(ok).startswith("Diagnosis: OK (2 steps)")
    step, model, optimizer = tiny()
    with pytest.raises(TypeError, match="function of no arguments"):
        diagnose("step", model, optimizer)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Optimizer"):
        diagnose(step, model, model)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="steps"):
        diagnose(step, model, optimizer, steps=0)
    with pytest.raises(ValueError, match="max_grad_norm"):
        diagnose(step, model, optimizer, max_grad_norm=0)
    with pytest.raises(TypeError, match="frozen"):
        diagnose(step, model, optimizer, frozen=[1])  # type: ignore[list-item]


def test_inference_mode_and_a_forgotten_backward() -> None:
    step, model, optimizer = tiny()

    def under_inference_mode() -> torch.Tensor:
        with torch.inference_mode():
            return step()

    assert diagnose(under_inference_mode, model, optimizer).stage is Stage.GRAD_MODE_DISABLED

    def no_backward() -> torch.Tensor:
        optimizer.zero_grad()
        loss = ((model(X) - Y) ** 2).mean()
        optimizer.step()
        return loss

    d = diagnose(no_backward, model, optimizer)
    assert d.stage is Stage.GRAD_MISSING
    assert any("was loss.backward() called" in e for e in d.evidence)


def test_an_error_diagnose_does_not_know_is_a_finding_with_the_error_kept_and_shown() -> None:
    model = nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = model(X).mean()
        loss.backward()
        raise KeyError("batch 'labels'")  # the step's own code, not autograd

    found = diagnose(step, model, optimizer)
    assert found.stage is Stage.BACKWARD_FAILED and isinstance(found.error, KeyError)
    assert "raised in train_step's own code" in "\n".join(found.evidence)
    assert "KeyError" in repr(found) and "kept as .error" in repr(found)
    assert "kept as <code>.error</code>" in found._repr_html_() and "KeyError" in found._repr_html_()


class _Stateful(nn.Module):
    """A recurrent cell that keeps its state as a plain attribute between calls."""

    def __init__(self, detach: bool) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.lin, self.detach = nn.Linear(4, 1), detach
        self.h = torch.zeros(16, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.h = torch.tanh(self.lin(x) + self.h)
        out = self.h
        if self.detach:
            self.h = self.h.detach()  # the fix: the next step starts from the value, not the graph
        return out


@pytest.mark.parametrize("detach", [False, True])
def test_state_a_module_carries_between_steps_is_named_when_backward_reaches_a_freed_graph(
    detach: bool,
) -> None:
    model = nn.Sequential(_Stateful(detach))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    step = plain_step(model, optimizer, X, Y)

    found = diagnose(step, model, optimizer)
    if detach:
        assert found.stage is Stage.OK, found
        return
    assert (found.stage, found.step) == (Stage.BACKWARD_FAILED, 2)
    text = "\n".join(found.evidence)
    assert "0.h (grad_fn=TanhBackward0)" in text and "model[0].h.grad_fn is not None" in text
    assert "self.h = value.detach()" in found.advice


def test_a_state_carried_outside_the_model_keeps_the_general_advice() -> None:
    """Only what the model holds is named: a dict in the step's closure is not a module attribute."""
    model = TinyNet(seed=0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    carried = {"h": torch.zeros(16, 1)}

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        carried["h"] = carried["h"] + model(X)
        loss = ((carried["h"] - Y) ** 2).mean()
        loss.backward()
        optimizer.step()
        return loss

    found = diagnose(step, model, optimizer)
    assert found.stage is Stage.BACKWARD_FAILED
    assert not any("module attributes" in e for e in found.evidence)
    assert "detach carried state" in found.advice


def _diagnose_ddp(replace: bool):
    """diagnose on a DistributedDataParallel model, optionally with a parameter replaced after wrapping;
    the model and its step are freed when this returns, before the caller destroys the group."""
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 1)))
    if replace:
        model.module[1].weight = nn.Parameter(torch.ones(1, 3))  # after DDP(...) was built
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    step = plain_step(model, optimizer, X, Y)

    return diagnose(step, model, optimizer)


@pytest.mark.parametrize("replace", [False, True])
def test_a_parameter_replaced_after_distributed_data_parallel_wrapped_the_module(
    replace: bool, tmp_path
) -> None:
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1)
    try:
        found = _diagnose_ddp(replace)
        gc.collect()  # the model's reducer goes before the group: a gloo group torn down first can hang
    finally:
        dist.destroy_process_group()
    if not replace:
        assert found.stage is Stage.OK, found
        return
    assert found.stage is Stage.PARAMS_UNREGISTERED and found.names == ["module.1.weight"]
    assert "replaced after DistributedDataParallel(...) wrapped the module" in found.evidence[0]
    assert "_module_parameters[" not in "\n".join(found.evidence)  # DDP's own list is not a stray


def test_a_graph_attribute_held_before_the_first_step_is_not_blamed_on_a_step() -> None:
    from helpers.doctor.carried import carried_graphs, graph_attributes

    model = nn.Sequential(_Stateful(detach=False))
    model[0].scale = nn.Parameter(torch.ones(1)).double()  # a copy made before any step
    before = [t for _, t in graph_attributes(model)]
    assert [path for path, _ in carried_graphs(model)] == ["0.scale"]
    model(X)  # a step's forward leaves its state behind
    assert carried_graphs(model, before) == [("0.h", "TanhBackward0")]


class _Scale(torch.autograd.Function):
    """y = x * 2; `wrong` makes backward return the gradient summed over the batch (shape [1, k])."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, wrong: bool) -> torch.Tensor:
        ctx.wrong = wrong
        return x * 2

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        grad = grad_output * 2
        return (grad.sum(0, keepdim=True).repeat(2, 1) if ctx.wrong else grad), None


@pytest.mark.parametrize("wrong", [False, True])
def test_a_backward_that_returns_a_gradient_of_the_wrong_shape_names_the_input_and_dimension(
    wrong: bool,
) -> None:
    model = nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    step = loss_step(optimizer, lambda: ((model[1](_Scale.apply(model[0](X), wrong)) - Y) ** 2).mean())

    found = diagnose(step, model, optimizer)
    if not wrong:
        assert found.stage is Stage.OK, found
        return
    assert found.stage is Stage.BACKWARD_FAILED
    assert (
        "custom Function _Scale's backward returned, for input 0 of its forward, a gradient of shape "
        "[2, 3]; that input has shape [16, 3] (dimension 0: 2 instead of 16)"
    ) in "\n".join(found.evidence)
    assert "_Scale.backward return, for input 0" in found.advice and "gradcheck" in found.advice
    assert not any("does not know this error" in e for e in found.evidence)


class _MadeInForward(nn.Module):
    """Creates its layer inside forward (at every call), or calls one made once, outside the model;
    `target` also runs a copy of fc1 made at every call under no_grad (a target network)."""

    def __init__(self, outside: nn.Module | None = None, target: bool = False) -> None:
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.head = nn.Linear(3, 1)
        self.outside, self.target = [outside], target  # a plain list: the outside module is not registered

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.fc1(x))
        if self.target:
            with torch.no_grad():
                target = copy.deepcopy(self.fc1)(x)
            h = h + target
        else:
            h = (self.outside[0] or nn.Linear(3, 3))(h)
        return self.head(h)


@pytest.mark.parametrize("kind", ["made_in_forward", "teacher", "target_under_no_grad"])
def test_a_layer_created_in_forward_at_every_call_is_named_a_teacher_outside_the_model_is_not(
    kind: str,
) -> None:
    torch.manual_seed(0)
    teacher = nn.Linear(3, 3) if kind == "teacher" else None  # the same object at every step
    model = _MadeInForward(teacher, target=kind == "target_under_no_grad")
    outside = kind != "made_in_forward"
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    step = plain_step(model, optimizer, X, Y)

    found = diagnose(step, model, optimizer)
    if outside:
        assert not found.evidence[0].startswith("the forward created modules"), found
        return
    assert (found.stage, found.step) == (Stage.PARAMS_UNREGISTERED, 2)
    assert found.names == ["Linear in the forward of the model (_MadeInForward)"]
    assert "Linear(in_features=3, out_features=3, bias=True) in the forward of the model" in found.evidence[0]
    assert "in __init__" in found.advice


class _Encoder(nn.Sequential):
    def __init__(self, detach: bool) -> None:
        super().__init__(nn.Linear(4, 3), nn.Tanh())
        self.detach = detach

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = super().forward(x)
        return h.detach() if self.detach else h


class _Cut(nn.Module):
    """An encoder and a head; `where` says how the path from the encoder to the loss is lost."""

    def __init__(self, where: str) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.where = where
        self.encoder = _Encoder(detach=where == "inside")
        self.head = nn.Linear(4 if where == "unused" else 3, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.where == "unused":
            return self.head(x)
        if self.where == "no_grad":
            with torch.no_grad():
                h = self.encoder(x)
        else:
            h = self.encoder(x)
        return self.head(h.detach() if self.where == "after" else h)


@pytest.mark.parametrize(
    ("where", "says"),
    [
        ("unused", "'encoder' never ran in this step"),
        ("no_grad", "'encoder' ran with grad mode off"),
        ("inside", "'encoder' ran with grad mode on, but its output does not require grad"),
        ("after", "the output of 'encoder' requires grad"),
    ],
)
def test_a_missing_gradient_says_where_the_path_to_the_loss_is_cut(where: str, says: str) -> None:
    model = _Cut(where)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    step = plain_step(model, optimizer, X, Y)

    found = diagnose(step, model, optimizer)
    assert found.stage is Stage.GRAD_MISSING and found.names == ["encoder.0.weight", "encoder.0.bias"]
    assert found.evidence[1].startswith(f"encoder.0.weight, encoder.0.bias: {says}"), found.evidence
    if where == "after":
        assert "the path is cut after 'encoder', between its output and the loss" in found.evidence[1]


@pytest.mark.parametrize(
    ("returned", "says"),
    [
        ("float", "a Python float, not a tensor: a float is what .item()"),
        ("int", "a Python int, not a tensor: an int is a constant"),
        ("tuple", "a Python tuple, not a tensor: the loss function returned several values"),
        ("tensor", None),
    ],
)
def test_backward_called_on_a_python_value_says_which_and_why(returned: str, says: str | None) -> None:
    model = TinyNet(seed=0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = ((model(X) - Y) ** 2).mean()
        value = {"float": loss.item(), "int": 0, "tuple": (loss, loss.detach()), "tensor": loss}[returned]
        value.backward()
        optimizer.step()
        return loss

    found = diagnose(step, model, optimizer)
    if says is None:
        assert found.ok, found
        return
    assert found.stage is Stage.BACKWARD_FAILED and isinstance(found.error, AttributeError)
    assert f"backward() was called on {says}" in found.evidence[2]
    assert not any("does not know this error" in e for e in found.evidence)


@pytest.mark.parametrize("cleared", [False, True])
def test_gradients_cleared_between_backward_and_step_are_named(cleared: bool) -> None:
    model = TinyNet(seed=0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def step() -> torch.Tensor:
        if not cleared:
            optimizer.zero_grad()
        loss = ((model(X) - Y) ** 2).mean()
        loss.backward()
        if cleared:
            optimizer.zero_grad()  # between backward and step: .grad is None when the step runs
        optimizer.step()
        return loss

    found = diagnose(step, model, optimizer)
    if not cleared:
        assert found.ok, found
        return
    assert found.stage is Stage.PARAMS_NOT_UPDATED
    assert any(".grad was None when optimizer.step() ran" in e for e in found.evidence)
    assert "never between backward and step" in found.advice
