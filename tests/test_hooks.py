"""watch_gradients: alerts on bad gradients, hooks that leave no trace and keep no gradient alive."""

import math

import pytest
import torch
from scenarios import model_state
from torch import nn

from helpers import count_host_syncs, watch_gradients
from helpers.hooks import GradientAlert, GradientWatch


def _model() -> nn.Sequential:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 1))


def _hook_counts(model: nn.Module) -> list[int]:
    return [len(p._backward_hooks or {}) for p in model.parameters()]


def test_large_gradients_alert_with_torch_max_abs():
    model = _model()
    with watch_gradients(model, max_abs=1.0) as watch:
        (model(torch.randn(8, 4)) * 1000).sum().backward()
    expected = {n: p.grad.abs().max().item() for n, p in model.named_parameters()}
    alerts = {a.name: a for a in watch.alerts}
    assert set(alerts) == {n for n, m in expected.items() if m > 1.0}
    assert "2.bias" in alerts  # d(1000 * sum y)/d bias = 1000 * batch
    for name, alert in alerts.items():
        assert isinstance(alert, GradientAlert)
        assert alert.kind == "large"
        assert alert.max_abs == pytest.approx(expected[name])
    assert watch.seen == 4


def test_non_finite_gradients_alert():
    model = _model()
    with watch_gradients(model) as watch:
        (model(torch.randn(2, 4)) - 100).sqrt().sum().backward()  # sqrt of a negative: NaN back
    assert model[0].weight.grad.isnan().all()
    assert [a.kind for a in watch.alerts] == ["non-finite"] * 4
    assert all(math.isnan(a.max_abs) for a in watch.alerts)


def test_healthy_gradients_give_no_alerts():
    model = _model()
    with watch_gradients(model, max_abs=1e3) as watch:
        model(torch.randn(2, 4)).sum().backward()
    assert watch.alerts == [] and watch.seen == 4
    assert repr(watch) == "GradientWatch(0 hooks active, 4 gradients seen, 0 alerts, max_abs=1000)"


def test_hooks_are_installed_inside_and_gone_after_exit():
    model = _model()
    model[2].requires_grad_(False)  # frozen parameters get no hook
    with watch_gradients(model, max_abs=1e-9) as watch:
        assert watch.active
        assert _hook_counts(model) == [1, 1, 0, 0]
        model(torch.randn(2, 4)).sum().backward()
    assert not watch.active
    assert _hook_counts(model) == [0, 0, 0, 0]
    assert len(watch.alerts) == 2
    model.zero_grad()
    model(torch.randn(2, 4)).sum().backward()  # a later backward adds nothing
    assert len(watch.alerts) == 2 and watch.seen == 2


def test_hooks_are_gone_when_the_body_raises():
    model = _model()
    with pytest.raises(RuntimeError, match="boom"), watch_gradients(model, max_abs=1e-9) as watch:
        model(torch.randn(2, 4)).sum().backward()
        raise RuntimeError("boom")
    assert _hook_counts(model) == [0, 0, 0, 0] and not watch.active
    assert len(watch.alerts) == 4  # the evidence gathered before the error is kept
    model(torch.randn(2, 4)).sum().backward()
    assert len(watch.alerts) == 4


def _grad_storage_reused(register_extra=None) -> bool:
    """Backward under a watch; did every .grad keep the buffer its last hook saw?"""
    model = _model()
    seen: dict[str, int] = {}
    with watch_gradients(model):
        if register_extra is not None:
            register_extra(model)
        handles = [
            p.register_hook(lambda g, n=n: seen.__setitem__(n, g.data_ptr()))
            for n, p in model.named_parameters()
        ]
        model(torch.randn(8, 4)).pow(2).sum().backward()
    for handle in handles:
        handle.remove()
    return all(seen[n] == p.grad.data_ptr() for n, p in model.named_parameters())


def test_the_watch_keeps_no_reference_to_the_gradient():
    # AccumulateGrad moves the incoming gradient into .grad only when no one else holds it.
    assert _grad_storage_reused()


def test_holding_a_gradient_would_be_detected():
    kept: list[torch.Tensor] = []

    def keep_gradients(model: nn.Module) -> None:
        for p in model.parameters():
            p.register_hook(kept.append)

    assert not _grad_storage_reused(keep_gradients)  # a hook that stores the gradient forces a copy
    assert len(kept) == 4


def test_alerts_read_the_host_once_and_rendering_reads_nothing():
    model = _model()
    with watch_gradients(model, max_abs=1e-9) as watch:
        with count_host_syncs() as during:
            model(torch.randn(2, 4)).sum().backward()
        with count_host_syncs() as reading:
            alerts = watch.alerts
            again = watch.alerts
    assert during.count == 0 and reading.count == 1
    assert alerts == again and len(alerts) == 4
    with count_host_syncs() as rendering:
        text, page = repr(watch), watch._repr_html_()
    assert rendering.count == 0
    assert text.splitlines()[0] == "GradientWatch(0 hooks active, 4 gradients seen, 4 alerts, max_abs=1e-09)"
    assert text.splitlines()[1].split() == ["name", "kind", "max_abs"]
    assert page.count("<tr>") == 5 and '<td style="background:#ffe0b2">large</td>' in page


def test_repr_inside_the_watch_counts_pending_gradients():
    model = _model()
    with watch_gradients(model, max_abs=1e-9) as watch:
        model(torch.randn(2, 4)).sum().backward()
        head = repr(watch).splitlines()[0]
    assert head == "GradientWatch(4 hooks active, 4 gradients seen, 4 alerts, max_abs=1e-09)"


def test_sparse_and_complex_gradients():
    emb = nn.Embedding(5, 2, sparse=True)
    with watch_gradients(emb, max_abs=1.5) as watch:
        emb(torch.tensor([3, 3])).sum().backward()
    assert [(a.name, a.kind, a.max_abs) for a in watch.alerts] == [("weight", "large", 2.0)]
    z = nn.Parameter(torch.tensor([3 + 4j]))
    holder = nn.ParameterList([z])
    with watch_gradients(holder, max_abs=1.0) as watch:
        (z * 2).abs().sum().backward()
    assert watch.alerts[0].max_abs == pytest.approx(z.grad.abs().item())


def test_the_model_is_left_as_it_was():
    model = _model()
    model(torch.randn(2, 4)).sum().backward()
    before = model_state(model)
    with watch_gradients(model):
        pass
    assert model_state(model) == before


def test_bad_input_is_a_clear_error():
    with pytest.raises(TypeError, match=r"expected a torch\.nn\.Module, got Tensor"):
        watch_gradients(torch.ones(2))
    with pytest.raises(ValueError, match="expected a model with parameters"):
        watch_gradients(nn.Tanh())
    with pytest.raises(ValueError, match="expected max_abs > 0, got 0"):
        watch_gradients(_model(), max_abs=0)
    assert isinstance(watch_gradients(_model()), GradientWatch)
