"""debug_training_step on TinyNet: the challenge's bugs show up in the report's fields."""

import copy

import pytest
import torch

from helpers import (
    GradientReport,
    GradStatus,
    NonFiniteError,
    ParameterChanges,
    StepReport,
    TinyNet,
    debug_training_step,
    make_tiny_problem,
)
from helpers.gradients import GradClassification

LR = 0.1


def mse(outputs, targets):
    return ((outputs - targets) ** 2).mean()


def _setup(params=None):
    model = TinyNet(seed=0)
    opt = torch.optim.SGD(model.parameters() if params is None else params(model), lr=LR)
    return model, opt, *make_tiny_problem(seed=0)


def test_a_healthy_step_matches_a_plain_torch_step():
    model, opt, x, y = _setup()
    reference = copy.deepcopy(model)
    ref_loss = mse(reference(x), y)
    ref_grads = dict(
        zip(
            [n for n, _ in reference.named_parameters()],
            torch.autograd.grad(ref_loss, list(reference.parameters())),
        )
    )
    for p in model.parameters():  # stale gradients, as after a forgotten zero_grad
        p.grad = torch.full_like(p, 100.0)
    report = debug_training_step(model, opt, mse, x, y)
    assert isinstance(report, StepReport)
    assert isinstance(report.gradients, GradientReport)
    assert isinstance(report.classification, GradClassification)
    assert isinstance(report.changes, ParameterChanges)
    assert report.loss == pytest.approx(ref_loss.item())
    for name, grad in ref_grads.items():
        row = report.gradients[name]
        assert row.norm == pytest.approx(torch.linalg.vector_norm(grad).item(), rel=1e-5), name
        assert row.rms == pytest.approx(grad.pow(2).mean().sqrt().item(), rel=1e-5), name
        assert torch.allclose(model.get_parameter(name).detach(), reference.get_parameter(name) - LR * grad)
    assert set(report.classification.status.values()) == {GradStatus.OK}
    assert set(report.changes.changed) == set(ref_grads) and all(report.changes.changed.values())


def test_bug_b_frozen_layer_is_reported_and_does_not_move():
    model, opt, x, y = _setup()
    model.fc1.requires_grad_(False)
    report = debug_training_step(model, opt, mse, x, y)
    assert report.classification.names(GradStatus.FROZEN) == ["fc1.weight", "fc1.bias"]
    assert report.changes.unchanged == ["fc1.weight", "fc1.bias"]


def test_bug_c_optimizer_misses_a_layer():
    model, opt, x, y = _setup(params=lambda m: m.fc2.parameters())
    report = debug_training_step(model, opt, mse, x, y)
    assert report.classification.names(GradStatus.NOT_IN_OPTIMIZER) == ["fc1.weight", "fc1.bias"]
    assert report.gradients.status["fc1.weight"] is GradStatus.OK  # gradient_report knows no optimizer
    assert report.changes.changed == {
        "fc1.weight": False,
        "fc1.bias": False,
        "fc2.weight": True,
        "fc2.bias": True,
    }


@pytest.mark.parametrize(
    "which",
    ["inputs", "outputs", "loss"],
)
def test_non_finite_stops_the_step_naming_where(which):
    model, opt, x, y = _setup()
    loss_fn = mse
    if which == "inputs":
        x = x.clone()
        x[3, 1] = float("nan")
    elif which == "outputs":
        with torch.no_grad():
            model.fc2.bias.fill_(float("inf"))
    else:

        def loss_fn(outputs, targets):  # the challenge's "dangerous division"
            return mse(outputs, targets) / 0

    before = copy.deepcopy(model.state_dict())
    with pytest.raises(NonFiniteError, match=f"^{which} contains non-finite values") as caught:
        debug_training_step(model, opt, loss_fn, x, y)
    assert caught.value.name == which
    assert caught.value.nan + caught.value.inf >= 1
    after = model.state_dict()
    assert all(torch.equal(before[k].nan_to_num(), after[k].nan_to_num()) for k in before), "no step taken"


def test_report_renders_as_text_and_html():
    model, opt, x, y = _setup()
    report = debug_training_step(model, opt, mse, x, y)
    text = repr(report)
    assert text.startswith(f"training step: loss={report.loss:.6g}\n\ngradient report (4 parameters")
    assert "gradient classification (OK=4)" in text and "parameter changes (4 of 4 changed)" in text
    page = report._repr_html_()
    assert page.startswith("<p><b>training step</b>") and page.count("<table") == 3


def test_bad_input_is_a_clear_error():
    model, opt, x, y = _setup()
    with pytest.raises(TypeError, match=r"expected a torch\.nn\.Module, got function"):
        debug_training_step(lambda t: t, opt, mse, x, y)
    with pytest.raises(TypeError, match=r"expected a torch\.optim\.Optimizer, got generator"):
        debug_training_step(model, model.parameters(), mse, x, y)
    with pytest.raises(TypeError, match=r"expected 'inputs' to be a torch\.Tensor, got list"):
        debug_training_step(model, opt, mse, x.tolist(), y)
