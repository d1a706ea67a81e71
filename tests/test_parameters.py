"""parameter_report, snapshot_parameters and parameter_changes."""

import pytest
import torch
from scenarios import model_state
from torch import nn

from helpers import (
    ParameterChanges,
    ParameterReport,
    count_host_syncs,
    parameter_changes,
    parameter_report,
    snapshot_parameters,
)
from helpers.parameters import ParameterSnapshot, value_norms


def _model() -> nn.Sequential:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))


# --- parameter_report -------------------------------------------------------------------------


def test_rows_and_counts_match_named_parameters():
    model = _model()
    model[0].requires_grad_(False)
    report = parameter_report(model)
    assert isinstance(report, ParameterReport)
    assert [(r.name, r.shape, r.numel, r.requires_grad) for r in report.rows] == [
        (n, tuple(p.shape), p.numel(), p.requires_grad) for n, p in model.named_parameters()
    ]
    assert report.total == sum(p.numel() for p in model.parameters()) == 15 + 8
    assert report.trainable == sum(p.numel() for p in model.parameters() if p.requires_grad) == 8
    assert report.frozen == ["0.weight", "0.bias"]


def test_a_tied_parameter_is_one_row_under_its_first_name():
    class Tied(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(10, 4)
            self.head = nn.Linear(4, 10, bias=False)
            self.head.weight = self.embed.weight

    report = parameter_report(Tied())
    assert [r.name for r in report.rows] == ["embed.weight"]
    assert report.total == report.trainable == 40


def test_report_reads_the_values_once_and_renders_without_reading():
    model = _model()
    with count_host_syncs() as reads:
        report = parameter_report(model)
    assert reads.count == 1  # the value norms, for the whole model at once
    with count_host_syncs() as reads:
        text, page = repr(report), report._repr_html_()
    assert reads.count == 0
    assert text.splitlines()[0] == "parameter report (total parameters: 23, trainable: 23)"
    header, rule, first = text.splitlines()[1:4]
    assert header.split() == ["name", "shape", "numel", "requires_grad"]
    assert [len(dashes) for dashes in rule.split()] == [8, 6, 5, 13]  # widest cell of each column
    assert first.split() == ["0.weight", "(3,", "4)", "12", "True"] and "\x1b[" not in text
    assert page.count("<tr>") == 1 + 4 and "<td>(3, 4)</td>" in page


def test_report_carries_each_parameters_value_norm_apart_from_its_columns():
    model = _model()
    report = parameter_report(model)
    expected = {n: p.detach().double().norm().item() for n, p in model.named_parameters()}
    assert report.value_norms == pytest.approx(expected, rel=1e-12)
    assert value_norms(model) == report.value_norms
    torch.manual_seed(1)  # the same network, another seed: the same rows, other values
    other = parameter_report(nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)))
    assert repr(other) == repr(report)
    assert all(other.value_norms[n] != v for n, v in report.value_norms.items())
    assert ParameterReport(report.rows).value_norms == {}  # a report built by hand has none


def test_a_model_on_the_meta_device_is_reported_without_values():
    report = parameter_report(nn.Linear(3, 2, device="meta"))
    assert [(r.name, r.shape) for r in report.rows] == [("weight", (2, 3)), ("bias", (2,))]
    assert report.value_norms == {}


def test_report_bad_input():
    with pytest.raises(TypeError, match=r"expected a torch\.nn\.Module, got dict"):
        parameter_report({"w": torch.ones(1)})
    with pytest.raises(ValueError, match="expected a model with parameters, but Sequential has none"):
        parameter_report(nn.Sequential())


# --- snapshot and changes ---------------------------------------------------------------------


def test_snapshot_is_a_detached_copy():
    model = _model()
    snap = snapshot_parameters(model)
    assert isinstance(snap, ParameterSnapshot) and list(snap) == [n for n, _ in model.named_parameters()]
    assert repr(snap) == "ParameterSnapshot(4 parameters: 0.weight, 0.bias, 2.weight, 2.bias)"
    with torch.no_grad():
        model[0].weight.add_(1.0)
    assert not snap["0.weight"].requires_grad
    assert torch.equal(snap["0.weight"] + 1.0, model[0].weight.detach())


def test_a_step_moves_the_trained_parameters_and_not_the_frozen_ones():
    model = _model()
    model[2].bias.requires_grad_(False)
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)
    snap = snapshot_parameters(model)
    model(torch.randn(5, 4)).pow(2).sum().backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
    opt.step()
    with count_host_syncs() as reads:
        changes = parameter_changes(model, snap)
    assert reads.count == 1
    assert isinstance(changes, ParameterChanges)
    assert changes.changed == {"0.weight": True, "0.bias": True, "2.weight": True, "2.bias": False}
    assert changes.unchanged == ["2.bias"]
    for name, grad in grads.items():  # SGD moved each parameter by lr * grad
        step = 0.1 * grad.abs()
        assert changes[name].max_delta == pytest.approx(step.max().item(), rel=1e-5)
        assert changes[name].mean_delta == pytest.approx(step.mean().item(), rel=1e-5)
    assert (changes["2.bias"].mean_delta, changes["2.bias"].max_delta) == (0.0, 0.0)


def test_changes_carry_the_value_norms_after_the_step():
    model = _model()
    snap = snapshot_parameters(model)
    with torch.no_grad():
        model[0].weight.add_(0.5)
    changes = parameter_changes(model, snap)
    assert changes.value_norms == pytest.approx(value_norms(model), rel=1e-12)
    assert changes.value_norms["0.weight"] != pytest.approx(snap["0.weight"].double().norm().item())


def test_a_parameter_with_a_zero_gradient_does_not_move():
    # A dead ReLU: every pre-activation negative, so the first layer gets zero gradients.
    model = _model()
    with torch.no_grad():
        model[0].weight.zero_()
        model[0].bias.fill_(-1.0)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    snap = snapshot_parameters(model)
    model(torch.randn(5, 4)).sum().backward()
    opt.step()
    changes = parameter_changes(model, snap)
    assert changes.changed == {"0.weight": False, "0.bias": False, "2.weight": False, "2.bias": True}


def test_nan_that_stays_nan_is_unchanged_and_nan_is_shown():
    model = _model()
    with torch.no_grad():
        model[0].bias[0] = float("nan")
    snap = snapshot_parameters(model)
    changes = parameter_changes(model, snap)
    assert not any(changes.changed.values())
    assert "nan" in repr(changes)


def test_changes_render_without_host_reads():
    model = _model()
    snap = snapshot_parameters(model)
    with torch.no_grad():
        model[0].weight.add_(0.5)
    changes = parameter_changes(model, snap)
    with count_host_syncs() as reads:
        text, page = repr(changes), changes._repr_html_()
    assert reads.count == 0
    assert text.splitlines()[0] == "parameter changes (1 of 4 changed)"
    assert text.splitlines()[3].split() == ["0.weight", "changed", "5.000e-01", "5.000e-01"]
    assert '<td style="background:#c8e6c9">changed</td>' in page
    assert page.count('<td style="background:#ffcdd2">unchanged</td>') == 3


def test_helpers_leave_the_model_alone():
    model = _model()
    model(torch.randn(2, 4)).sum().backward()
    before = model_state(model)
    snap = snapshot_parameters(model)
    parameter_changes(model, snap)
    parameter_report(model)
    assert model_state(model) == before


def test_a_wrong_snapshot_is_a_clear_error():
    model = _model()
    with pytest.raises(TypeError, match=r"expected the dict from snapshot_parameters\(\), got list"):
        parameter_changes(model, [p.detach() for p in model.parameters()])
    other = snapshot_parameters(nn.Linear(4, 3))
    with pytest.raises(KeyError, match=r"missing \['0\.weight', '0\.bias', '2\.weight', '2\.bias'\]"):
        parameter_changes(model, other)
    extra = dict(snapshot_parameters(model), stray=torch.ones(1))
    with pytest.raises(KeyError, match=r"unknown \['stray'\]"):
        parameter_changes(model, extra)
    wrong_shape = dict(snapshot_parameters(model), **{"0.bias": torch.zeros(4)})
    with pytest.raises(ValueError, match=r"0\.bias: snapshot shape \(4,\) != parameter shape \(3,\)"):
        parameter_changes(model, wrong_shape)
    not_tensor = dict(snapshot_parameters(model), **{"0.bias": [0.0, 0.0, 0.0]})
    with pytest.raises(TypeError, match=r"expected \"snapshot\['0\.bias'\]\" to be a torch\.Tensor"):
        parameter_changes(model, not_tensor)
    with pytest.raises(TypeError, match=r"expected a torch\.nn\.Module"):
        snapshot_parameters("model")
