"""gradient_report, classify_parameter_gradients and grad_norm against torch's own numbers."""

import math

import pytest
import torch
from scenarios import deep_linear_stack, model_state, status_zoo
from torch import nn

from helpers import (
    GradientReport,
    GradStatus,
    classify_parameter_gradients,
    count_host_syncs,
    grad_norm,
    gradient_report,
)
from helpers.gradients import GradClassification

EXPECTED_ZOO = {
    "frozen.weight": GradStatus.FROZEN,
    "frozen.bias": GradStatus.FROZEN,
    "unused.weight": GradStatus.NO_GRAD,
    "unused.bias": GradStatus.NO_GRAD,
    "sqrt_scale": GradStatus.NON_FINITE_GRAD,
    "forgotten.weight": GradStatus.NOT_IN_OPTIMIZER,
    "forgotten.bias": GradStatus.NOT_IN_OPTIMIZER,
    "dead.weight": GradStatus.ZERO_GRAD,
    "dead.bias": GradStatus.ZERO_GRAD,
    "live.weight": GradStatus.OK,
    "live.bias": GradStatus.OK,
}


@pytest.fixture(scope="module")
def deep_model():
    """200 parameter tensors with finite gradients from one backward pass."""
    model = deep_linear_stack()
    model(torch.randn(4, 16)).pow(2).mean().backward()
    return model


# --- every status from a real backward pass ---------------------------------------------------


def test_each_status_comes_from_a_real_scenario():
    model, opt = status_zoo()
    classes = classify_parameter_gradients(model, opt)
    assert isinstance(classes, GradClassification)
    assert classes.status == EXPECTED_ZOO
    assert set(EXPECTED_ZOO.values()) == set(GradStatus) - {GradStatus.UNREGISTERED}  # test_real_models
    assert classes.names(GradStatus.NO_GRAD) == ["unused.weight", "unused.bias"]


def test_without_an_optimizer_nothing_is_not_in_optimizer():
    model, _ = status_zoo()
    expected = dict(EXPECTED_ZOO, **{"forgotten.weight": GradStatus.OK, "forgotten.bias": GradStatus.OK})
    assert classify_parameter_gradients(model).status == expected
    assert gradient_report(model).status == expected


def test_statuses_are_decided_in_order():
    layer = nn.Linear(2, 2)
    for p in layer.parameters():
        p.grad = torch.zeros_like(p)
    layer.weight.grad[0, 0] = float("nan")
    layer.weight.requires_grad_(False)  # frozen beats non-finite
    opt = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1)  # holds neither
    assert classify_parameter_gradients(layer, opt).status == {
        "weight": GradStatus.FROZEN,
        "bias": GradStatus.NOT_IN_OPTIMIZER,  # not in the optimizer beats zero
    }
    layer.weight.requires_grad_(True)
    assert classify_parameter_gradients(layer, opt)["weight"].status is GradStatus.NON_FINITE_GRAD


def test_zero_grad_status_needs_every_element_zero():
    layer = nn.Linear(2, 1)
    layer.weight.grad = torch.tensor([[0.0, 1e-30]])
    layer.bias.grad = torch.zeros(1)
    assert gradient_report(layer).status == {"weight": GradStatus.OK, "bias": GradStatus.ZERO_GRAD}


# --- report fields against torch --------------------------------------------------------------


def test_rows_match_hand_derived_and_torch_gradients():
    # loss = sum(w * x)^2 / 2 = s^2 / 2, so dloss/dw = s * x: derived by hand, checked with autograd.grad.
    x = torch.tensor([1.0, -2.0, 3.0])
    layer = nn.Linear(3, 1, bias=False)
    with torch.no_grad():
        layer.weight.copy_(torch.tensor([[0.5, 0.25, -1.0]]))
    loss = layer(x).pow(2).sum() / 2
    (reference,) = torch.autograd.grad(loss, layer.weight, retain_graph=True)
    s = 0.5 - 0.5 - 3.0
    assert torch.allclose(reference, s * x.unsqueeze(0))
    loss.backward()
    row = gradient_report(layer)["weight"]
    assert row.name == "weight" and row.status is GradStatus.OK
    assert row.norm == pytest.approx(torch.linalg.vector_norm(reference).item())
    assert row.norm == pytest.approx(abs(s) * math.sqrt(1 + 4 + 9))  # |s| * |x|, by hand
    assert row.rms == pytest.approx(row.norm / math.sqrt(3))
    assert (row.finite, row.nan, row.inf) == (True, 0, 0)


def test_every_field_on_the_status_zoo(deep_model):
    model, _ = status_zoo()
    report = gradient_report(model)
    assert isinstance(report, GradientReport)
    assert [r.name for r in report.rows] == [n for n, _ in model.named_parameters()]
    for name, p in model.named_parameters():
        row = report[name]
        if p.grad is None:
            assert (row.norm, row.rms, row.finite, row.nan, row.inf) == (None, None, True, 0, 0)
            continue
        g = p.grad
        assert row.finite == bool(torch.isfinite(g).all())
        assert (row.nan, row.inf) == (int(g.isnan().sum()), int(g.isinf().sum()))
        norm = torch.linalg.vector_norm(g.double()).item()
        assert row.norm == pytest.approx(norm, nan_ok=True)
        assert row.rms == pytest.approx(norm / math.sqrt(g.numel()), nan_ok=True)
    assert report.all_finite is False
    assert report["sqrt_scale"].inf == 3  # d sqrt(s)/ds at s = 0 is +inf


def test_nan_counts_from_masking_after_an_invalid_op():
    # torch.where picks 0 where x <= 0, but sqrt's backward still runs there: 0 * inf = NaN.
    p = nn.Parameter(torch.tensor([0.0, 4.0, 0.0]))
    model = nn.ParameterList([p])
    torch.where(p > 0, p.sqrt(), torch.zeros_like(p)).sum().backward()
    row = gradient_report(model).rows[0]
    assert (row.status, row.finite, row.nan, row.inf) == (GradStatus.NON_FINITE_GRAD, False, 2, 0)
    assert math.isnan(row.norm) and math.isnan(row.rms)


def test_log_of_zero_gives_an_inf_gradient():
    p = nn.Parameter(torch.tensor([0.0, 1.0]))
    model = nn.ParameterList([p])
    p.log().sum().backward()
    row = gradient_report(model).rows[0]
    assert (row.status, row.finite, row.nan, row.inf) == (GradStatus.NON_FINITE_GRAD, False, 0, 1)


def test_a_float32_norm_that_overflows_is_measured_again_exactly():
    layer = nn.Linear(100, 100)
    layer.weight.grad = torch.full_like(layer.weight, 1e30)
    layer.bias.grad = torch.ones_like(layer.bias)
    assert torch.isinf(torch.linalg.vector_norm(layer.weight.grad))  # a float32 L2 norm overflows here
    row = gradient_report(layer)["weight"]
    assert row.finite and row.status is GradStatus.OK
    # measured again rescaled by 2**-100, summed in float32: 10,000 squares drift in the sixth digit
    assert row.norm == pytest.approx(1e30 * 100, rel=1e-5) and row.rms == pytest.approx(1e30, rel=1e-5)


def test_half_precision_sums_do_not_overflow():
    layer = nn.Linear(1000, 1).half()
    layer.weight.grad = torch.full_like(layer.weight, 60000.0)  # sum 6e7, far above float16's 65504
    layer.bias.grad = torch.zeros_like(layer.bias)
    row = gradient_report(layer)["weight"]
    assert row.finite and row.rms == pytest.approx(60000.0, rel=1e-3)
    assert row.norm == pytest.approx(60000.0 * math.sqrt(1000), rel=1e-3)


def test_sparse_gradients_from_a_sparse_embedding():
    emb = nn.Embedding(10, 3, sparse=True)
    emb(torch.tensor([1, 2, 2])).sum().backward()
    assert emb.weight.grad.is_sparse
    dense = emb.weight.grad.to_dense()
    before = model_state(emb)
    row = gradient_report(emb)["weight"]
    assert row.status is GradStatus.OK and row.finite
    assert row.norm == pytest.approx(torch.linalg.vector_norm(dense).item())
    assert row.norm == pytest.approx(math.sqrt(3 * 1.0 + 3 * 4.0))  # row 1 once, row 2 twice
    assert row.rms == pytest.approx(row.norm / math.sqrt(30))
    assert grad_norm(emb).item() == pytest.approx(torch.linalg.vector_norm(dense).item())
    assert model_state(emb) == before


def test_sparse_gradient_without_stored_values_is_zero():
    emb = nn.Embedding(4, 2, sparse=True)
    emb.weight.grad = torch.zeros(4, 2).to_sparse()
    assert emb.weight.grad._nnz() == 0
    row = gradient_report(emb)["weight"]
    assert (row.status, row.norm, row.rms) == (GradStatus.ZERO_GRAD, 0.0, 0.0)
    assert grad_norm(emb).item() == 0.0


def test_complex_gradients_use_magnitudes():
    p = nn.Parameter(torch.tensor([1 + 1j, 3 - 4j]))
    model = nn.ParameterList([p])
    (p.abs() ** 2).sum().backward()  # d|z|^2 = 2z in torch's conjugate convention
    g = p.grad
    assert torch.allclose(g, 2 * p.detach())
    row = gradient_report(model).rows[0]
    assert row.norm == pytest.approx(torch.linalg.vector_norm(g).item()) == pytest.approx(math.sqrt(8 + 100))
    assert row.rms == pytest.approx(row.norm / math.sqrt(2))
    assert grad_norm(model).item() == pytest.approx(torch.linalg.vector_norm(g).item())


# --- one host read, and nothing changes -------------------------------------------------------


def test_one_host_read_on_200_parameter_tensors(deep_model):
    assert len(list(deep_model.parameters())) == 200
    opt = torch.optim.SGD(deep_model.parameters(), lr=0.1)
    with count_host_syncs() as report_reads:
        report = gradient_report(deep_model)
    with count_host_syncs() as class_reads:
        classes = classify_parameter_gradients(deep_model, opt)
    assert report_reads.count == 1, report_reads
    assert class_reads.count == 1, class_reads
    assert len(report.rows) == len(classes.rows) == 200


def test_a_second_read_only_when_a_gradient_is_non_finite(deep_model):
    grad = deep_model[7].weight.grad
    saved = grad[0, 0].clone()
    grad[0, 0] = float("inf")
    try:
        with count_host_syncs() as reads:
            report = gradient_report(deep_model)
    finally:
        grad[0, 0] = saved
    assert reads.count == 2, reads  # the norms, then the NaN/Inf counts
    assert report["7.weight"].inf == 1 and not report["7.weight"].finite
    assert sum(not r.finite for r in report.rows) == 1


def test_a_report_made_and_displayed_reads_the_device_once(deep_model):
    # Users meet a report by displaying it: Jupyter asks for both the text and the HTML form.
    model, opt = status_zoo()
    model.sqrt_scale.grad = None  # every remaining gradient is finite
    makers = [
        lambda: gradient_report(deep_model),
        lambda: classify_parameter_gradients(deep_model, torch.optim.SGD(deep_model.parameters(), lr=0.1)),
        lambda: gradient_report(model),
        lambda: classify_parameter_gradients(model, opt),
    ]
    for make in makers:
        with count_host_syncs() as reads:
            report = make()
            text, page = repr(report), report._repr_html_()
        assert reads.count == 1, (reads, text)
        shown = min(len(report), report.max_rows)
        assert page.count("<tr>") == 1 + shown + (len(report) > shown)  # a last row counts the rest


def test_rows_keep_what_the_report_measured_after_the_gradients_change(deep_model):
    grad = deep_model[0].weight.grad
    expected = torch.linalg.vector_norm(grad).item()
    report = gradient_report(deep_model)
    saved = grad.clone()
    deep_model[0].weight.grad.zero_()  # zero_grad(set_to_none=False) after the report
    try:
        row = report["0.weight"]
    finally:
        grad.copy_(saved)
    assert row.status is GradStatus.OK
    assert row.norm == pytest.approx(expected)


def test_reports_do_not_mutate_model_grads_or_optimizer():
    model, opt = status_zoo()
    model.live.weight.grad.mul_(1.0)
    opt.step()  # give the optimizer some state to compare
    model.zero_grad(set_to_none=False)
    model(torch.randn(5, 3)).backward()
    before = model_state(model, opt)
    gradient_report(model)
    classify_parameter_gradients(model, opt)
    grad_norm(model)
    assert model_state(model, opt) == before


# --- rendering --------------------------------------------------------------------------------


def test_repr_is_plain_text_with_every_row_and_nan_shown():
    model, opt = status_zoo()
    text = repr(gradient_report(model))
    assert "\x1b[" not in text
    assert text.splitlines()[0] == "gradient report (11 parameters, 2 without grad, 1 non-finite)"
    assert text.splitlines()[1].split() == ["name", "status", "norm", "rms", "nan", "inf"]
    sqrt_line = next(line for line in text.splitlines() if line.startswith("sqrt_scale"))
    assert sqrt_line.split()[1:] == ["NON_FINITE_GRAD", "inf", "inf", "0", "3"]
    classes = repr(classify_parameter_gradients(model, opt))
    assert classes.splitlines()[0].startswith("gradient classification (")
    assert "NOT_IN_OPTIMIZER=2" in classes.splitlines()[0]


def test_html_colours_status_and_non_finite_cells():
    model, opt = status_zoo()
    page = classify_parameter_gradients(model, opt)._repr_html_()
    assert page.count("<tr>") == 1 + 11
    assert '<td style="background:#c8e6c9">OK</td>' in page
    assert '<td style="background:#ffcdd2">NON_FINITE_GRAD</td>' in page
    assert '<td style="background:#ffcdd2;font-weight:bold">inf</td>' in page


def test_unknown_name_is_a_key_error_listing_names():
    model, _ = status_zoo()
    with pytest.raises(KeyError, match=r"no parameter named 'nope'.*live\.bias"):
        gradient_report(model)["nope"]


# --- grad_norm --------------------------------------------------------------------------------


@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf])
def test_grad_norm_matches_torch(deep_model, norm_type):
    grads = [p.grad for p in deep_model.parameters()]
    expected = torch.nn.utils.get_total_norm(grads, norm_type)
    by_hand = torch.linalg.vector_norm(torch.cat([g.flatten() for g in grads]), norm_type)
    total = grad_norm(deep_model, norm_type)
    assert total.shape == () and total.dtype == torch.float32
    assert torch.allclose(total, expected) and torch.allclose(total, by_hand)


def test_grad_norm_reads_nothing_and_takes_parameters_or_a_tensor(deep_model):
    with count_host_syncs() as reads:
        whole = grad_norm(deep_model)
        listed = grad_norm(list(deep_model.parameters()))
        generator = grad_norm(p for p in deep_model.parameters())
        one = grad_norm(deep_model[0].weight)
    assert reads.count == 0, reads
    assert torch.equal(whole, listed) and torch.equal(whole, generator)
    assert torch.allclose(one, torch.linalg.vector_norm(deep_model[0].weight.grad))


def test_grad_norm_skips_none_grads_and_is_zero_without_any():
    model, _ = status_zoo()
    model.sqrt_scale.grad = None
    with_grads = [p.grad for p in model.parameters() if p.grad is not None]
    assert torch.allclose(grad_norm(model), torch.nn.utils.get_total_norm(with_grads))
    fresh = nn.Linear(2, 2)
    assert grad_norm(fresh).shape == () and grad_norm(fresh).item() == 0.0


def test_grad_norm_of_half_gradients_is_finite():
    layer = nn.Linear(1000, 1).half()
    layer.weight.grad = torch.full_like(layer.weight, 60000.0)
    total = grad_norm(layer)
    assert torch.isfinite(total)
    assert total.item() == pytest.approx(60000.0 * math.sqrt(1000), rel=1e-3)


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize("report", [gradient_report, classify_parameter_gradients])
def test_bad_models_are_clear_errors(report):
    with pytest.raises(TypeError, match=r"expected a torch\.nn\.Module, got list"):
        report([nn.Parameter(torch.ones(1))])
    with pytest.raises(ValueError, match="expected a model with parameters, but ReLU has none"):
        report(nn.ReLU())


def test_a_wrong_optimizer_is_a_clear_error():
    with pytest.raises(TypeError, match=r"expected a torch\.optim\.Optimizer, got list"):
        classify_parameter_gradients(nn.Linear(1, 1), [])


@pytest.mark.parametrize("bad", ["weights", 3, [torch.ones(1), "x"]])
def test_grad_norm_bad_input_is_a_clear_error(bad):
    with pytest.raises(TypeError, match="expected"):
        grad_norm(bad)


def test_row_norms_add_up_to_the_total_norm_clipping_uses(deep_model):
    report = gradient_report(deep_model)
    total = math.sqrt(sum(r.norm**2 for r in report.rows))
    assert total == pytest.approx(grad_norm(deep_model).item(), rel=1e-5)
    clipped_at = torch.nn.utils.clip_grad_norm_(deep_model.parameters(), math.inf)
    assert total == pytest.approx(clipped_at.item(), rel=1e-5)


def test_grad_norm_takes_torch_foreach_path(deep_model, monkeypatch):
    calls = []
    real = torch._foreach_norm

    def spy(tensors, *args, **kwargs):
        calls.append(len(tensors))
        return real(tensors, *args, **kwargs)

    monkeypatch.setattr(torch, "_foreach_norm", spy)
    grad_norm(deep_model)
    assert calls == [200]  # one fused call over every gradient of one device and dtype


def test_reports_work_under_no_grad_and_inference_mode():
    model, opt = status_zoo()
    expected = classify_parameter_gradients(model, opt).status
    with torch.no_grad():
        assert classify_parameter_gradients(model, opt).status == expected
    with torch.inference_mode():
        assert gradient_report(model).status["live.bias"] is GradStatus.OK
        assert torch.isinf(grad_norm(model))  # the sqrt-at-0 gradient is infinite


def test_rows_are_values_with_a_readable_repr():
    model, _ = status_zoo()
    report = gradient_report(model)
    row = report["unused.weight"]
    assert repr(row) == "GradientRow('unused.weight', NO_GRAD, norm=None, rms=None, nan=0, inf=0)"
    assert len(report) == 11 and list(report) == report.rows
    with pytest.raises(AttributeError):
        row.status = GradStatus.OK  # rows are frozen: a report cannot be edited after the fact


@pytest.mark.parametrize(("inputs", "reads"), [(4, 1), (5000, 2)], ids=["stacked, float64", "alone, float32"])
def test_a_finite_gradient_whose_norm_overflows_float32_is_not_reported_non_finite(inputs, reads):
    layer = nn.Linear(inputs, 1)
    layer.weight.grad = torch.full_like(layer.weight, 3e38)  # squares overflow float32
    layer.bias.grad = torch.ones_like(layer.bias)
    with count_host_syncs() as counter:
        report = gradient_report(layer)
    row = report["weight"]
    # A small tensor is summed in float64; a large one in float32, then again rescaled by 2**-100.
    assert counter.count == reads, counter
    assert (row.finite, row.nan, row.inf, row.status) == (True, 0, 0, GradStatus.OK)
    assert row.norm == pytest.approx(3e38 * math.sqrt(inputs), rel=1e-5) and report.all_finite


@pytest.mark.parametrize(
    ("value", "status", "large_reads"),
    [
        (0.0, GradStatus.ZERO_GRAD, 2),  # exact, but float32 cannot tell it from tiny: a second look
        (1e-30, GradStatus.OK, 3),  # squares underflow float32: the norm reads 0; not all zero bytes
        (1e-20, GradStatus.OK, 2),  # squares subnormal: digits lost
        (1e-6, GradStatus.OK, 1),
    ],
)
@pytest.mark.parametrize("inputs", [10, 5000], ids=["small: float64", "large: float32"])
def test_a_tiny_gradient_is_told_from_a_zero_one(value, status, large_reads, inputs):
    """A small tensor is summed in float64 in the one read; a large one in float32, looked at again
    when its norm is too small for float32 squares."""
    layer = nn.Linear(inputs, 1)
    layer.weight.grad = torch.full_like(layer.weight, value)
    layer.bias.grad = torch.ones_like(layer.bias)
    with count_host_syncs() as reads:
        row = gradient_report(layer)["weight"]
    assert reads.count == (1 if inputs <= 4096 else large_reads), reads
    assert row.status is status
    rel = 1e-6 if inputs <= 4096 else 1e-5  # a float32 sum of 5,000 squares drifts in the sixth digit
    assert row.norm == pytest.approx(value * math.sqrt(inputs), rel=rel)
    assert row.rms == pytest.approx(value, rel=rel)


def test_a_long_report_shows_every_notable_row_and_counts_the_rest():
    model = nn.ParameterList([nn.Parameter(torch.ones(3)) for _ in range(200)])
    for p in model:
        p.grad = torch.ones(3)
    model[150].grad[1] = float("nan")
    model[170].grad = None
    model[190].requires_grad_(False)
    report = gradient_report(model)
    text, page = repr(report), report._repr_html_()
    lines = text.splitlines()
    assert lines[0] == "gradient report (200 parameters, 1 without grad, 1 non-finite)"
    shown = [line.split()[0] for line in lines[3:-1]]
    assert shown == [str(i) for i in range(58)] + ["150", "170"]  # 60 rows: the two notable ones kept
    assert lines[-1].startswith("... 140 more rows, each OK or FROZEN with a finite gradient")
    assert page.count("<tr>") == 1 + 60 + 1 and "140 more rows" in page
    report.max_rows = None
    assert len(repr(report).splitlines()) == 3 + 200 and report._repr_html_().count("<tr>") == 201
    assert len(report.rows) == 200
    report.max_rows = 0  # the notable rows only: a NaN is never left out
    assert [line.split()[0] for line in repr(report).splitlines()[3:-1]] == ["150", "170"]
    for bad in (-1, 2.5, "10", True):
        report.max_rows = bad
        with pytest.raises(ValueError, match="expected max_rows to be None or a whole number >= 0"):
            repr(report)
