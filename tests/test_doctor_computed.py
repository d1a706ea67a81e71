"""diagnose's checks of what a step computes: each names its bug with evidence, stays quiet on the
healthy code beside it, and a finding that may be intended is quiet once marked intended."""

from __future__ import annotations

import copy
import math
from collections import OrderedDict

import pytest
import torch
from field_corpus.case import loss_step, mlp, regression
from torch import nn
from torch.nn import functional as F
from torch.nn.utils import clip_grad_norm_  # bound by name before any diagnosis, as scripts do

from helpers import Stage, diagnose, watch_non_finite

X, Y = regression()


def _mlp_step(loss_of, *, model=None, optimizer=None):
    model = model or mlp()
    optimizer = optimizer or torch.optim.SGD(model.parameters(), lr=0.1)
    return loss_step(optimizer, lambda: loss_of(model)), model, optimizer


def _stage(step, model, optimizer, **options):
    found = diagnose(step, model, optimizer, **options)
    return found.stage, "\n".join([*found.evidence, found.advice, repr(found)])  # unwrapped lines first


# ---- eval mode ---------------------------------------------------------------------------------
def _dropout_model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.3), nn.Linear(8, 1))


def test_a_model_left_in_eval_mode_is_named_with_its_modules_and_the_fix():
    model = _dropout_model().eval()
    stage, text = _stage(*_mlp_step(lambda m: F.mse_loss(m(X), Y), model=model))
    assert stage is Stage.GRAD_MODE_DISABLED
    assert "'1' (BatchNorm1d)" not in text and "1 (BatchNorm1d), 3 (Dropout)" in text
    assert "model.train()" in text and "intended=" in text


def test_train_mode_a_frozen_backbone_in_eval_and_a_marked_module_are_quiet():
    assert _stage(*_mlp_step(lambda m: F.mse_loss(m(X), Y), model=_dropout_model()))[0] is Stage.OK
    layers = list(_dropout_model())
    model = nn.Sequential(OrderedDict(backbone=nn.Sequential(*layers[:4]), head=layers[4]))
    model.backbone.requires_grad_(False)
    model.backbone.eval()  # a frozen backbone, its BatchNorm statistics and dropout frozen with it
    head = torch.optim.SGD(model.head.parameters(), lr=0.1)
    step, model, head = _mlp_step(lambda m: F.mse_loss(m(X), Y), model=model, optimizer=head)
    assert _stage(step, model, head, frozen=["backbone"])[0] is Stage.OK
    model = _dropout_model()
    model[1].eval()  # BatchNorm statistics frozen on purpose, its affine still trained
    assert _stage(*_mlp_step(lambda m: F.mse_loss(m(X), Y), model=model), intended=["1"])[0] is Stage.OK


# ---- targets, logits, dead terms ---------------------------------------------------------------
def _td(detach: bool):
    net = mlp()
    target_net = copy.deepcopy(net)

    def loss_of(m):
        with torch.set_grad_enabled(not detach):
            target = Y + 0.9 * target_net(X)
        return F.mse_loss(m(X), target)

    return _mlp_step(loss_of, model=net)


def test_a_target_that_requires_grad_is_named_and_a_detached_one_is_not():
    stage, text = _stage(*_td(detach=False))
    assert stage is Stage.LOSS_NOT_IN_GRAPH
    assert "the target of mse_loss requires grad (its grad_fn is AddBackward0)" in text and "detach" in text
    assert _stage(*_td(detach=True))[0] is Stage.OK
    both_sides = _mlp_step(lambda m: F.mse_loss(m(X), 0.5 * m(X)))  # trained on both sides on purpose
    assert _stage(*both_sides)[0] is Stage.LOSS_NOT_IN_GRAPH
    assert _stage(*both_sides, intended=["mse_loss"])[0] is Stage.OK


def test_probabilities_fed_to_a_loss_that_applies_sigmoid_or_softmax_are_named():
    labels = (Y > 0).float()
    stage, text = _stage(
        *_mlp_step(lambda m: F.binary_cross_entropy_with_logits(torch.sigmoid(m(X)), labels))
    )
    assert stage is Stage.LOSS_NOT_IN_GRAPH and "received the output of a Sigmoid" in text
    classes = torch.arange(16) % 3
    wide = nn.Sequential(nn.Linear(4, 3))
    stage, text = _stage(*_mlp_step(lambda m: F.cross_entropy(m(X).softmax(-1), classes), model=wide))
    assert stage is Stage.LOSS_NOT_IN_GRAPH and "output of a Softmax" in text
    assert _stage(*_mlp_step(lambda m: F.binary_cross_entropy_with_logits(m(X), labels)))[0] is Stage.OK
    assert _stage(*_mlp_step(lambda m: F.binary_cross_entropy(torch.sigmoid(m(X)), labels)))[0] is Stage.OK


def test_a_loss_term_without_gradient_is_named_where_it_is_added():
    def loss_of(m):
        out = m(X)
        dead = (out.argmax(1) == 0).float().mean() + 1.0  # from argmax: no graph
        return F.mse_loss(out, Y) + dead

    stage, text = _stage(*_mlp_step(loss_of))
    assert stage is Stage.LOSS_NOT_IN_GRAPH
    assert "a term that carries no gradient: a tensor of value 2" in text
    assert "test_doctor_computed.py" in text and "F.mse_loss(out, Y) + dead" in text


def test_a_sum_started_from_zero_and_an_epsilon_inside_a_log_are_not_dead_terms():
    def loss_of(m):
        total = torch.zeros(())
        total += F.mse_loss(m(X), Y)
        return total + torch.log(m(X).abs() + torch.tensor(1e-6)).mean() * 0.01

    assert _stage(*_mlp_step(loss_of))[0] is Stage.OK


# ---- warnings ----------------------------------------------------------------------------------
def test_a_broadcasting_loss_is_named_from_its_warning_and_other_warnings_are_notes():
    stage, text = _stage(*_mlp_step(lambda m: F.mse_loss(m(X).squeeze(-1), Y)))
    assert (
        stage is Stage.BACKWARD_FAILED and "UserWarning: Using a target size" in text and "broadcast" in text
    )

    def warns(m):
        import warnings

        warnings.warn("a note from the user's step", UserWarning, stacklevel=1)
        return F.mse_loss(m(X), Y)

    found = diagnose(*_mlp_step(warns))
    assert found.ok and any("a note from the user's step: not a finding" in e for e in found.evidence)


# ---- clipping ----------------------------------------------------------------------------------
def _clip_step(where: str):
    model, (x, y) = mlp(), regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def step():
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        params = model.parameters()
        if where == "consumed":
            list(params)
        if where in ("before", "consumed"):
            torch.nn.utils.clip_grad_norm_(params, 0.5)
        optimizer.step()
        if where == "after":
            nn.utils.clip_grad_value_(model.parameters(), 0.1)
        return loss

    return step, model, optimizer


@pytest.mark.parametrize(
    ("where", "words"),
    [
        ("after", "clip_grad_value_ ran after optimizer.step()"),
        ("consumed", "clip_grad_norm_ received no parameter"),
    ],
)
def test_a_clip_that_clips_nothing_the_update_uses_is_named(where: str, words: str):
    stage, text = _stage(*_clip_step(where))
    assert stage is Stage.GRAD_MAGNITUDE and words in text, text


def test_a_clip_before_the_step_is_quiet_and_the_functions_are_put_back():
    originals = (
        torch.nn.utils.clip_grad_norm_,
        F.mse_loss,
        F.linear,
        torch.autograd.backward,
        torch.Tensor.__add__,
    )
    found = diagnose(*_clip_step("before"))
    assert found.ok and not any("clip" in n for n in found.not_run)
    after = (
        torch.nn.utils.clip_grad_norm_,
        F.mse_loss,
        F.linear,
        torch.autograd.backward,
        torch.Tensor.__add__,
    )
    assert after == originals and "__add__" not in torch.Tensor.__dict__


def _clip_by_name_step(after: bool):
    """A step that calls clip_grad_norm_ through this module's own name for it (imported at the top)."""
    model, (x, y) = mlp(), regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def step():
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        if not after:
            clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        if after:
            clip_grad_norm_(model.parameters(), 0.5)
        return loss

    return step, model, optimizer


def _held(function):
    return [cell.cell_contents for cell in function.__closure__ or ()]


def test_a_clip_imported_by_name_after_the_step_is_named():
    held = _held(clip_grad_norm_)
    stage, text = _stage(*_clip_by_name_step(after=True))
    assert stage is Stage.GRAD_MAGNITUDE and "clip_grad_norm_ ran after optimizer.step()" in text, text
    assert _held(clip_grad_norm_) == held  # the function torch's wrapper calls is put back


def test_a_clip_imported_by_name_before_the_step_is_quiet_and_counted():
    step, model, optimizer = _clip_by_name_step(after=False)
    found = diagnose(step, model, optimizer)
    assert found.ok and not any("clip" in n for n in found.not_run), found
    grads = [torch.ones(3, requires_grad=True) for _ in range(2)]
    for g in grads:
        g.grad = torch.full((3,), 4.0)
    assert clip_grad_norm_(grads, 1.0).item() == pytest.approx(math.sqrt(6 * 16))  # works as before
    assert torch.linalg.vector_norm(torch.cat([g.grad for g in grads])).item() == pytest.approx(1.0, rel=1e-5)


# ---- shared modules, leaves outside the model ---------------------------------------------------
def test_one_module_under_several_names_is_named_and_tied_weights_or_a_marked_list_are_not():
    layer = nn.Linear(4, 4)
    shared = nn.Sequential(layer, nn.ReLU(), layer)
    stage, text = _stage(*_mlp_step(lambda m: F.mse_loss(m(X), X), model=shared))
    assert stage is Stage.PARAMS_UNREGISTERED and "0, 2 are the same module (one Linear object" in text
    assert _stage(*_mlp_step(lambda m: F.mse_loss(m(X), X), model=shared), intended=["0"])[0] is Stage.OK
    tied = nn.Sequential(nn.Linear(4, 4, bias=False), nn.ReLU(), nn.Linear(4, 4, bias=False))
    tied[2].weight = tied[0].weight  # one parameter in two modules: weight tying, not one module twice
    assert _stage(*_mlp_step(lambda m: F.mse_loss(m(X), X), model=tied))[0] is Stage.OK


def test_a_layer_the_loss_uses_that_no_optimizer_holds_is_named_wherever_it_lives():
    head = nn.Linear(1, 3)
    classes = torch.arange(16) % 3
    stage, text = _stage(*_mlp_step(lambda m: F.cross_entropy(head(m(X)), classes)))
    assert stage is Stage.NOT_IN_OPTIMIZER
    assert "Linear(in_features=1, out_features=3, bias=True) (6 elements)" in text and "no optimizer" in text
    model = mlp()
    both = torch.optim.SGD([*model.parameters(), *head.parameters()], lr=0.1)
    assert _stage(*_mlp_step(lambda m: F.cross_entropy(head(m(X)), classes), model=model, optimizer=both))[
        0
    ] is (Stage.OK)
    teacher = mlp(seed=1)

    def distil(m):
        with torch.no_grad():
            soft = teacher(X)
        return F.mse_loss(m(X), soft)

    assert _stage(*_mlp_step(distil))[0] is Stage.OK  # a frozen teacher run under no_grad


# ---- Embedding(max_norm), the loss under the watch, what OK checked ----------------------------
def test_an_embedding_with_max_norm_used_once_is_quiet():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(5, 4, max_norm=1.0), nn.Linear(4, 1))
    idx = torch.tensor([0, 1, 2])
    assert _stage(*_mlp_step(lambda m: m(idx).pow(2).mean(), model=model))[0] is Stage.OK


def test_the_watch_flags_a_nan_born_in_the_loss_and_nothing_for_a_finite_one():
    model = mlp()
    with watch_non_finite(model) as watch:
        out = model(X)
        out[out > 1e9].mean().backward()  # an empty selection: its mean is NaN
    assert [(e.phase, e.tensor, e.nan) for e in watch.events] == [("loss", "loss", 1)]
    with watch_non_finite(model) as watch:
        F.mse_loss(model(X), Y).backward()
    assert watch.events == []


def test_ok_says_what_it_checked_and_what_it_could_not():
    found = diagnose(*_mlp_step(lambda m: ((m(X) - Y) ** 2).mean()))
    assert found.ok and len(found.checked) == 12
    assert any(c.startswith("GRAD_MAGNITUDE:") and "clip calls" in c for c in found.checked)
    assert any("called no loss function of torch.nn.functional" in n for n in found.not_run)
    assert "checked:" in repr(found) and "not run:" in repr(found)
    assert "<b>not run</b>" in found._repr_html_()
    bad = diagnose(*_mlp_step(lambda m: F.mse_loss(m(X).squeeze(-1), Y)))
    assert not bad.checked and "checked:" not in repr(bad)


class _BufferLinear(nn.Module):
    """A linear layer whose weight was registered as a buffer, beside a trained bias."""

    def __init__(self, name: str) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.register_buffer(name, torch.randn(1, 4))
        self.bias = nn.Parameter(torch.zeros(1))
        self.name = name

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, getattr(self, self.name), self.bias)


def test_a_buffer_used_as_a_weight_is_named_and_a_fixed_projection_is_not():
    stage, text = _stage(*_mlp_step(lambda m: F.mse_loss(m(X), Y), model=_BufferLinear("weight")))
    assert (
        stage is Stage.PARAMS_UNREGISTERED and "weight (used by F.linear)" in text and "nn.Parameter" in text
    )
    marked = _mlp_step(lambda m: F.mse_loss(m(X), Y), model=_BufferLinear("weight"))
    assert _stage(*marked, intended=["weight"])[0] is Stage.OK
    fixed = _mlp_step(lambda m: F.mse_loss(m(X), Y), model=_BufferLinear("projection"))  # fixed features
    assert _stage(*fixed)[0] is Stage.OK


class _FixedKernel(nn.Module):
    """A fixed linear operator: its weight is a buffer and the module trains nothing of its own."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("weight", torch.full((4, 4), 0.25))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight)


def test_a_buffer_weight_in_a_module_that_trains_nothing_of_its_own_is_a_fixed_operator():
    model = nn.Sequential(_FixedKernel(), mlp())
    assert _stage(*_mlp_step(lambda m: F.mse_loss(m(X), Y), model=model))[0] is Stage.OK
    beside = nn.Sequential(_FixedKernel(), _BufferLinear("weight"))  # the bias of layer 1 trains
    stage, text = _stage(*_mlp_step(lambda m: F.mse_loss(m(X), Y), model=beside))
    assert (
        stage is Stage.PARAMS_UNREGISTERED
        and "1.weight (used by F.linear) beside its module's trained bias" in text
    )
    assert "0.weight" not in text


class _Sampled(nn.Module):
    """Features shifted by a sample drawn as buffer + exp(other buffer) * noise, then a trained layer."""

    def __init__(self, names: tuple[str, str], use: bool = True) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.names, self.use = names, use
        self.register_buffer(names[0], torch.randn(1, 4) * 0.1)
        self.register_buffer(names[1], torch.full((1, 4), -1.0))
        self.head = nn.Linear(4, 1)
        self.noise = torch.randn(1, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean, spread = (getattr(self, n) for n in self.names)
        return self.head(x + mean + spread.exp() * self.noise if self.use else x)


def _sampled(names: tuple[str, str], use: bool = True):
    return _mlp_step(lambda m: F.mse_loss(m(X), Y), model=_Sampled(names, use))


def test_buffers_named_as_a_distributions_parameters_that_the_step_uses_are_named():
    stage, text = _stage(*_sampled(("slot_mu", "slot_log_sigma")))
    assert stage is Stage.PARAMS_UNREGISTERED
    assert "slot_mu (used by add)" in text and "slot_log_sigma (used by exp)" in text
    assert "head.weight, head.bias" in text and "nn.Parameter" in text
    assert (
        _stage(*_sampled(("slot_mu", "slot_log_sigma")), intended=["slot_mu", "slot_log_sigma"])[0]
        is Stage.OK
    )


@pytest.mark.parametrize(
    ("names", "use"),
    [
        (("prior_mu", "prior_log_sigma"), True),  # a fixed prior, by design
        (("running_mu", "ema_logvar"), True),  # statistics kept by the model, not learned
        (("shift", "log_spread"), True),  # named as neither a weight nor a distribution's parameter
        (("menu", "sigmaless"), True),  # the words inside other words
        (("slot_mu", "slot_log_sigma"), False),  # registered but never used in the step
    ],
)
def test_other_buffers_in_a_sampling_module_stay_quiet(names, use):
    assert _stage(*_sampled(names, use))[0] is Stage.OK


def test_a_module_without_such_buffers_runs_its_step_with_no_function_mode():
    def depths(model: nn.Module) -> set[int]:
        seen, optimizer = set(), torch.optim.SGD(model.parameters(), lr=0.1)
        inner = loss_step(optimizer, lambda: F.mse_loss(model(X), Y))
        diagnose(lambda: (seen.add(torch._C._len_torch_function_stack()), inner())[1], model, optimizer)
        return seen

    assert depths(mlp()) == {0}  # no mode, no cost, where no buffer is named as a distribution's parameter
    assert 1 in depths(_Sampled(("slot_mu", "slot_log_sigma")))  # the mode where it has work
    assert torch._C._len_torch_function_stack() == 0  # and gone after


def test_exploding_gradients_that_the_step_clips_say_the_norm_is_before_clipping():
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-9)

    def step():
        optimizer.zero_grad()
        loss = F.mse_loss(model(X) * 1e6, Y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        return loss

    found = diagnose(step, model, optimizer, max_grad_norm=1000.0)  # the default scales with this loss
    assert found.stage is Stage.GRAD_MAGNITUDE
    assert any("these norms are the gradients before clipping" in e for e in found.evidence), found.evidence


@pytest.mark.parametrize("bad", [[""], [3], ("ok", None)])
def test_intended_takes_names_only(bad):
    with pytest.raises(TypeError, match="expected intended to hold module or function names"):
        diagnose(*_mlp_step(lambda m: F.mse_loss(m(X), Y)), intended=bad)
