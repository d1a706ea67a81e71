"""The toolkit on real-shaped models (ResNet, MobileNet, LSTM LM, padded encoder), with the bugs
people report: unregistered layers, GradScaler, warm-up from lr 0, NaN made between modules,
torch.compile, huge finite values, complex and half precision, and diagnose leaving no trace."""

from __future__ import annotations

import copy
import gc
import math
import re
import weakref
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from real_models import (
    LSTMLanguageModel,
    MaskedMeanClassifier,
    PlainListResNet,
    gpt2_tiny,
    mobilenet_tiny,
    resnet18,
    resnet_tiny,
    torchvision_or_skip,
    training_step,
)
from torch import nn

from helpers import (
    GradStatus,
    NonFiniteError,
    Stage,
    assert_finite,
    classify_parameter_gradients,
    debug_tensor,
    diagnose,
    gradient_report,
    watch_non_finite,
)
from helpers.doctor.checklist import CHECKLIST

pytestmark = pytest.mark.realmodel

HELPERS = Path(__file__).resolve().parent.parent / "helpers"


def images(n: int = 4, size: int = 8, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, 3, size, size, generator=g), torch.randint(0, 10, (n,), generator=g)


def classifier_step(model, optimizer, x, y, scaler=None, scheduler=None):
    return training_step(optimizer, lambda: F.cross_entropy(model(x), y), scaler, scheduler)


# ---- unregistered parameters ------------------------------------------------------------------
def test_blocks_in_a_plain_list_are_unregistered_in_every_report_and_diagnose_names_them():
    model = PlainListResNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = images()
    verdict = diagnose(classifier_step(model, optimizer, x, y), model, optimizer)
    assert verdict.stage is Stage.PARAMS_UNREGISTERED, verdict
    assert "blocks[0].conv1.weight" in verdict.names and "blocks[1].downsample.0.weight" in verdict.names
    assert (
        "blocks[0].conv1.weight" in verdict.evidence[0] and "optimizer does not hold" in verdict.evidence[1]
    )

    F.cross_entropy(model(x), y).backward()
    for report in (gradient_report(model), classify_parameter_gradients(model, optimizer)):
        assert report.status["blocks[1].bn2.weight"] is GradStatus.UNREGISTERED
        assert report.status["stem.0.weight"] is GradStatus.OK
        assert len(report.unregistered) == 6 + 9  # two blocks; the second has a projection
    assert gradient_report(model)["blocks[0].conv2.weight"].norm > 0  # measured like the others


def test_registered_models_have_nothing_unregistered():
    model = LSTMLanguageModel()  # a tied head: one tensor under two names, registered once
    tokens = torch.randint(0, 50, (2, 6))
    F.cross_entropy(model(tokens).flatten(0, 1), tokens.flatten()).backward()
    report = gradient_report(model)
    assert report.unregistered == [] and "head.weight" not in report.status
    assert set(report.status.values()) == {GradStatus.OK}


# ---- mixed precision --------------------------------------------------------------------------
def test_healthy_grad_scaler_training_is_ok_on_unscaled_norms():
    model = mobilenet_tiny()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = torch.amp.GradScaler("cpu")  # scale 65536: scaled norms are far above max_grad_norm
    verdict = diagnose(classifier_step(model, optimizer, *images(), scaler=scaler), model, optimizer)
    assert verdict.ok, verdict


def test_a_step_the_scaler_skips_is_reported_as_skipped_and_the_scale_is_restored():
    model = mobilenet_tiny()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = torch.amp.GradScaler("cpu", init_scale=3e38, backoff_factor=1e-30)  # overflows once
    step = classifier_step(model, optimizer, *images(), scaler=scaler)
    scale = scaler.get_scale()
    verdict = diagnose(step, model, optimizer, steps=2)
    assert verdict.ok, verdict  # the scale settled after the skip: not a finding
    note = next(e for e in verdict.evidence if "GradScaler skipped" in e)
    assert "step 1" in note and "scale 3e+38" in note and "settled at 3e+08" in note
    assert "0.weight" in note  # the non-finite (scaled) gradients that caused the skip
    assert scaler.get_scale() == torch.tensor(scale).item()  # as found (the scale lives in float32)

    every = diagnose(step, model, optimizer, steps=1)
    assert every.stage is Stage.GRAD_NON_FINITE and "every step was skipped" in every.evidence[1]
    assert "GradScaler skipped optimizer.step(): scale 3e+38" in every.evidence[0]
    assert not any("not a finding" in e for e in every.evidence)


# ---- schedulers ------------------------------------------------------------------------------
def test_warm_up_from_lr_zero_is_not_a_finding():
    model = LSTMLanguageModel()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    warmup = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, s / 4))  # starts at 0
    tokens = torch.randint(0, 50, (2, 6))

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(tokens).flatten(0, 1), tokens.flatten())
        loss.backward()
        optimizer.step()
        warmup.step()
        return loss

    verdict = diagnose(step, model, optimizer)
    assert verdict.ok, verdict
    assert any("step 1 ran with lr [0.0]" in e for e in verdict.evidence)
    assert warmup.last_epoch == 0 and optimizer.param_groups[0]["lr"] == 0.0  # untouched


def test_the_evidence_shows_the_lr_the_step_used():
    model = LSTMLanguageModel()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)  # a hand-written warm-up, no scheduler
    tokens = torch.randint(0, 50, (2, 6))
    count = [0]

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(tokens).flatten(0, 1), tokens.flatten())
        loss.backward()
        optimizer.step()
        count[0] += 1
        optimizer.param_groups[0]["lr"] = 0.1 * count[0]  # set after the step: not what it used
        return loss

    verdict = diagnose(step, model, optimizer)
    assert verdict.stage is Stage.PARAMS_NOT_UPDATED
    assert "learning rate(s) [0.0]" in verdict.evidence[1]


# ---- no trace --------------------------------------------------------------------------------
def _training(seed: int = 0):
    model = mobilenet_tiny(seed=seed)  # BatchNorm buffers and dropout (RNG)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    warmup = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 3))
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=1)
    return model, optimizer, warmup, scaler


@pytest.mark.parametrize("explicit", [False, True])
def test_diagnose_leaves_no_trace_and_the_next_steps_are_bit_identical(explicit: bool):
    x, y = images()
    runs = []
    for with_diagnose in (False, True):
        torch.manual_seed(1)
        model, optimizer, warmup, scaler = _training()
        step = classifier_step(model, optimizer, x, y, scaler=scaler, scheduler=warmup)
        step()  # optimizer state and scheduler progress exist before diagnose
        hooks = len(model[-1]._forward_hooks)
        if with_diagnose:
            kwargs = {"schedulers": [warmup], "scaler": scaler} if explicit else {}
            assert diagnose(step, model, optimizer, steps=2, **kwargs).ok
        assert len(model[-1]._forward_hooks) == hooks
        for _ in range(3):
            step()
        state = copy.deepcopy(optimizer.state_dict()["state"])
        runs.append((model.state_dict(), state, warmup.last_epoch, scaler.get_scale(), torch.rand(3)))
    (m0, s0, e0, sc0, r0), (m1, s1, e1, sc1, r1) = runs
    assert e0 == e1 and sc0 == sc1 and torch.equal(r0, r1)
    assert all(torch.equal(m0[k], m1[k]) for k in m0), [k for k in m0 if not torch.equal(m0[k], m1[k])]
    assert s0 and s0.keys() == s1.keys(), "the optimizer keeps state for every parameter"
    for p in s0:
        assert all(torch.equal(torch.as_tensor(s0[p][k]), torch.as_tensor(s1[p][k])) for k in s0[p])


# ---- exact non-finite flags ---------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_huge_finite_gradients_are_not_reported_non_finite(dtype: torch.dtype):
    model = mobilenet_tiny().to(dtype)
    head = model[-1]
    with torch.no_grad():
        head.weight.fill_(1e37 / 16)  # grad w.r.t. the head's input: 10 * 6e35 per element, finite
    x, _ = images()
    with watch_non_finite(model) as watch:
        out = model(x.to(dtype))
        out.backward(torch.ones_like(out))
    assert torch.isfinite(out).all()
    assert all(torch.isfinite(p.grad).all() for p in model.parameters())
    assert watch.events == [], watch  # the sum-based flags overflowed: 6e36 * 64 > 3.4e38


def test_one_nan_inf_counter_and_every_report_agrees_on_complex_and_half():
    z = torch.tensor([complex(math.nan, math.inf), complex(math.inf, 0.0), 1 + 1j, 2 + 0j])
    expected = (1, 1)  # an element is NaN if a part is NaN, else Inf if a part is infinite
    info = debug_tensor("z", z)
    assert (info.nan, info.inf) == expected
    with pytest.raises(NonFiniteError) as raised:
        assert_finite("z", z)
    assert (raised.value.nan, raised.value.inf) == expected
    layer = nn.Linear(2, 2).to(torch.complex64)
    layer.weight.grad = z.reshape(2, 2).to(torch.complex64)
    row = gradient_report(layer)["weight"]
    assert (row.nan, row.inf) == expected and not row.finite
    half = torch.tensor([60000.0, 60000.0, math.inf, math.nan], dtype=torch.float16)
    info = debug_tensor("h", half)
    assert (info.nan, info.inf) == (1, 1)

    sources = {p.name: p.read_text() for p in HELPERS.glob("*.py")}
    counting = [
        n
        for n, text in sources.items()
        if re.search(r"torch\.isinf\(|\.isinf\(\)|isnan\([^)]*\)\.sum\(", text)
    ]
    assert counting == ["_stats.py"], counting


def test_only_public_torch_apis():
    texts = {p.name: p.read_text() for p in HELPERS.glob("*.py")}
    text = "".join(texts.values())
    for private in ("_execution_engine", "queue_callback"):
        assert private not in text, private
    # One private function is allowed, where no public one reaches the figures: torch._foreach_norm,
    # looked up once in _tuned_norms.py (None on a torch without it) with a per-tensor fallback.
    assert [name for name, t in texts.items() if "_foreach_norm" in t] == ["_tuned_norms.py"]
    assert 'getattr(torch, "_foreach_norm", None)' in texts["_tuned_norms.py"]
    assert "torch._foreach_norm(" not in texts["_tuned_norms.py"]
    assert not re.search(r"(import|from) torch\._dynamo|torch\._dynamo\.\w+[.(]", text)


# ---- the origin of a NaN ---------------------------------------------------------------------
def test_a_nan_made_between_modules_names_the_parent_forward_not_the_next_module():
    model = MaskedMeanClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    tokens = torch.tensor([[3, 4, 5, 0], [0, 0, 0, 0]])  # the second row is all padding
    labels = torch.tensor([0, 1])

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(tokens), labels)
        loss.backward()
        optimizer.step()
        return loss

    verdict = diagnose(step, model, optimizer)
    assert verdict.stage is Stage.FORWARD_NON_FINITE
    assert "input[0] of 'head'" in verdict.evidence[1], verdict
    assert "'head' received it already non-finite" in verdict.evidence[2]
    assert "the model's forward, after 'encoder' ran" in verdict.evidence[2]
    first = verdict.reports["non_finite"].first
    assert (first.module, first.tensor, first.after, first.nan) == ("head", "input[0]", "encoder", 16)


# ---- torch.compile ---------------------------------------------------------------------------
def test_compiled_models_are_watched_and_diagnosed_eagerly():
    model = MaskedMeanClassifier()
    compiled = torch.compile(model, backend="eager")
    tokens = torch.tensor([[3, 4, 0, 0], [0, 0, 0, 0]])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step() -> torch.Tensor:  # the first compiled call happens inside diagnose
        optimizer.zero_grad()
        loss = F.cross_entropy(compiled(tokens), torch.tensor([0, 1]))
        loss.backward()
        optimizer.step()
        return loss

    for target in (model, compiled):
        verdict = diagnose(step, target, optimizer)
        assert verdict.stage is Stage.FORWARD_NON_FINITE, verdict
        assert verdict.names == ["head"] and "ran eagerly" in verdict.evidence[-1]
    compiled(tokens)  # compiled now, hooks added afterwards
    for target in (model, compiled):
        with watch_non_finite(target) as watch:
            compiled(tokens).sum().backward()
        assert watch.compiled and "ran eagerly" in repr(watch)
        assert watch.first is not None and watch.first.module == "head", watch


# ---- memory (the figure is a benchmark: bench_toolkit.py) -------------------------------------
def test_diagnose_copies_nothing_while_the_activations_are_alive():
    # The step's own peak is the forward/backward (activations); diagnose copies parameters and
    # optimizer state at optimizer.step(), after backward freed them, so the copies do not add
    # to that peak. Today's main copied everything before the step (5x the parameter bytes).
    model = resnet_tiny()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = images()
    params = {id(p) for p in model.parameters()}
    shapes = {tuple(p.shape) for p in model.parameters() if p.numel() >= 4096}
    copies_seen: list[int] = []

    def count(module: nn.Module, args: tuple, out: torch.Tensor) -> None:
        proxies = (weakref.ProxyType, weakref.CallableProxyType)  # dead ones raise on isinstance
        tensors = [o for o in gc.get_objects() if type(o) not in proxies and isinstance(o, torch.Tensor)]
        copies_seen.append(sum(tuple(t.shape) in shapes and id(t) not in params for t in tensors))

    handle = model[-1].register_forward_hook(count)  # the end of the forward: activations alive
    try:
        assert diagnose(classifier_step(model, optimizer, x, y), model, optimizer).ok
    finally:
        handle.remove()
    assert len(copies_seen) == 2 and copies_seen[0] == 0, copies_seen


# ---- design ----------------------------------------------------------------------------------
def test_the_checklist_is_data_with_an_entry_per_stage():
    stages = [c.stage for c in CHECKLIST]
    assert set(stages) == set(Stage) - {Stage.OK}
    assert all(c.evidence and callable(c.check) for c in CHECKLIST)
    order = list(Stage)
    firsts = list(dict.fromkeys(stages))
    assert sorted(firsts, key=order.index) == firsts or firsts[2:4] == [
        Stage.PARAMS_FROZEN,
        Stage.LOSS_NOT_IN_GRAPH,
    ]


# ---- torchvision, where it imports ------------------------------------------------------------
def _torchvision_training(name: str) -> tuple[nn.Module, torch.optim.Optimizer]:
    """A fresh torchvision classifier (seeded) and its SGD; skips where torchvision does not import."""
    torchvision = torchvision_or_skip()
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(num_classes=10)
    return model, torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v3_small"])
def test_torchvision_models_are_ok_and_a_plain_list_is_found(name: str):
    model, optimizer = _torchvision_training(name)
    step = classifier_step(model, optimizer, *images(n=4, size=64))  # BatchNorm over more than 2 values
    assert diagnose(step, model, optimizer, steps=1).ok
    model.extra = [nn.Linear(10, 10)]
    assert diagnose(step, model, optimizer, steps=1).stage is Stage.PARAMS_UNREGISTERED


def test_a_resnet_whose_last_batchnorm_sees_two_values_is_found_exploding():
    """Two 32-pixel images reach ResNet-18's last stage as 1x1 maps: each BatchNorm channel normalises two
    numbers, and the gradient norm is about 4e5 at a loss of 2.3. Not a healthy model: the doctor says so."""
    model, optimizer = _torchvision_training("resnet18")
    verdict = diagnose(classifier_step(model, optimizer, *images(n=2, size=32)), model, optimizer, steps=1)
    assert verdict.stage is Stage.GRAD_MAGNITUDE, verdict


# ---- scalers and schedules on real code: torchvision's ResNet-18 and transformers' GPT-2 -----
def _resnet18_training(scaler=None, schedule=None, before: int = 1):
    model = resnet18(num_classes=10)  # torchvision's where it imports, else the same network
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = schedule(optimizer) if schedule is not None else None
    x, y = images(n=4, size=64)  # BatchNorm over more than 2 values in the last stage
    step = classifier_step(model, optimizer, x, y, scaler=scaler, scheduler=scheduler)
    for _ in range(before):  # mid-training: gradients, momentum and schedule progress exist
        step()
    return model, optimizer, scheduler, step


def _gpt2_training(scaler=None, schedule=None, before: int = 1):
    model = gpt2_tiny()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = schedule(optimizer) if schedule is not None else None
    tokens = torch.randint(0, 64, (2, 8), generator=torch.Generator().manual_seed(0))
    step = training_step(optimizer, lambda: model(tokens, labels=tokens).loss, scaler, scheduler)
    for _ in range(before):  # mid-training: gradients, Adam moments and schedule progress exist
        step()
    return model, optimizer, scheduler, step


TRAININGS = {"resnet18": _resnet18_training, "gpt2": _gpt2_training}


@pytest.mark.parametrize(
    ("name", "power", "skips"),
    [("resnet18", 127, "none"), ("gpt2", 127, "every"), ("gpt2", 120, "none")],
)
def test_a_grad_scaler_whose_scale_overflows_is_named_not_read_as_exploding_gradients(
    name: str, power: int, skips: str
):
    # GPT-2 at 2**127: every step's scaled gradients overflow and GradScaler skips every step.
    # ResNet-18 at 2**127 and GPT-2 at 2**120: every element stays finite (no skip) but their
    # norm is inf in float32, which diagnose read as GRAD_MAGNITUDE ("total gradient norm inf >
    # max_grad_norm"): an infinite norm is named as what it is, with the scale that causes it.
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**power)
    model, optimizer, _, step = TRAININGS[name](scaler=scaler)
    scaler.load_state_dict({**scaler.state_dict(), "scale": 2.0**power})  # the scale diagnose meets
    verdict = diagnose(step, model, optimizer)
    assert verdict.stage is Stage.GRAD_NON_FINITE, verdict
    text = "\n".join(verdict.evidence)
    assert f"scale ({2.0**power:g} when diagnose began) is so large" in text, verdict
    assert "lower init_scale" in text and "max_grad_norm" not in text and "not a finding" not in text
    if skips == "every":
        assert f"every step was skipped ({verdict.steps} of {verdict.steps})" in text, verdict
    else:
        assert "skipped no step" in text and "norm overflows float32" in text, verdict
    assert scaler.get_scale() == 2.0**power  # restored

    healthy = torch.amp.GradScaler("cpu")  # init_scale 65536
    model, optimizer, _, step = TRAININGS[name](scaler=healthy)
    assert diagnose(step, model, optimizer).ok


def test_a_scale_that_overflows_once_then_overflows_the_norm_names_the_skipped_step():
    # The case: step 1 is skipped (scale 2**127), step 2 runs at 2**126 with finite
    # elements whose float32 norm is inf; diagnose answered GRAD_MAGNITUDE.
    model = mobilenet_tiny()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**127)
    verdict = diagnose(classifier_step(model, optimizer, *images(), scaler=scaler), model, optimizer)
    assert verdict.stage is Stage.GRAD_NON_FINITE and verdict.step == 2, verdict
    assert "the total gradient norm is inf: at scale 8.50706e+37" in verdict.evidence[0]
    assert "skipped optimizer.step() in 1 of 2 steps" in verdict.evidence[1]
    assert "from 1.70141e+38 to 8.50706e+37" in verdict.evidence[1]
    assert "lower init_scale" in verdict.evidence[2] and len(verdict.evidence) == 3, verdict


@pytest.mark.parametrize("name", TRAININGS)
def test_a_schedule_that_holds_lr_at_zero_is_named_from_a_copy_of_the_schedule(name: str):
    model, optimizer, scheduler, step = TRAININGS[name](
        schedule=lambda o: torch.optim.lr_scheduler.LambdaLR(o, lambda s: s // 100)
    )
    base = optimizer.param_groups[0]["initial_lr"]
    verdict = diagnose(step, model, optimizer)
    assert verdict.stage is Stage.PARAMS_NOT_UPDATED, verdict
    held = next(e for e in verdict.evidence if "holds the learning rate" in e)
    assert "LambdaLR" in held and "from its step 1 " in held, held  # one step taken before diagnose
    assert f"becomes {base:g} only at step 100" in held and "99 steps that update nothing" in held, held
    assert not any("not a finding" in e for e in verdict.evidence)
    assert scheduler.last_epoch == 1 and optimizer.param_groups[0]["lr"] == 0.0  # the copy was stepped

    forever = TRAININGS[name](schedule=lambda o: torch.optim.lr_scheduler.LambdaLR(o, lambda s: 0.0))
    verdict = diagnose(forever[3], forever[0], forever[1], steps=1)
    assert verdict.stage is Stage.PARAMS_NOT_UPDATED, verdict
    assert "stays there for the next 1000 scheduler steps" in verdict.evidence[2], verdict


WARM_UPS = {
    "LambdaLR from 0": lambda o: torch.optim.lr_scheduler.LambdaLR(o, lambda s: min(1.0, s / 10)),
    "LinearLR from 1e-8": lambda o: torch.optim.lr_scheduler.LinearLR(o, start_factor=1e-8, total_iters=10),
}


@pytest.mark.parametrize("warm_up", WARM_UPS)
@pytest.mark.parametrize("name", TRAININGS)
def test_a_warm_up_from_lr_about_zero_that_rises_at_the_next_step_is_ok(name: str, warm_up: str):
    model, optimizer, scheduler, step = TRAININGS[name](schedule=WARM_UPS[warm_up], before=0)
    assert optimizer.param_groups[0]["lr"] <= 1e-8 * optimizer.param_groups[0]["initial_lr"]
    verdict = diagnose(step, model, optimizer)
    assert verdict.ok, verdict
    assert scheduler.last_epoch == 0  # untouched
