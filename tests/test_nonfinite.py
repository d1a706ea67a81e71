"""watch_non_finite: where NaN and Inf first appear, at one host read per pass, leaving no hooks."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from helpers import NonFiniteError, count_host_syncs, watch_non_finite
from helpers.doctor.nonfinite import NonFiniteWatch


class SafeSqrt(nn.Module):
    """sqrt behind torch.where: finite forward, NaN gradient for negative inputs."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.where(x > 0, torch.sqrt(x), torch.zeros_like(x))


class Poison(nn.Module):
    """Writes a NaN and an Inf into its output (a forward problem born here)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = x * 1.0
        out[0, 0] = float("nan")
        out[1, 0] = float("inf")
        return out


def _hooks(model: nn.Module) -> int:
    count = 0
    for m in model.modules():
        count += len(m._forward_hooks) + len(m._forward_pre_hooks) + len(m._backward_hooks)
    for p in model.parameters():
        count += len(p._backward_hooks or {})
    return count


@pytest.fixture
def data() -> torch.Tensor:
    return torch.randn(6, 4, generator=torch.Generator().manual_seed(0))


def test_forward_nan_and_inf_are_located_with_exact_counts(data: torch.Tensor) -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), Poison(), nn.Linear(4, 2))
    with watch_non_finite(model) as watch:
        model(data)
    first = watch.first
    assert (first.phase, first.module, first.tensor) == ("forward", "1", "output")
    assert (first.nan, first.inf) == (1, 1)
    # the next layer's output is non-finite too (events keep order), and no backward ran
    assert [e.module for e in watch.events] == ["1", "2"]
    assert all(e.phase == "forward" for e in watch.events)


def test_finite_step_has_no_event_and_the_model_input_is_checked(data: torch.Tensor) -> None:
    model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 1))
    with watch_non_finite(model) as watch:
        model(data).sum().backward()
    assert watch.first is None and watch.events == []
    bad = data.clone()
    bad[2, 1] = float("-inf")
    with watch_non_finite(model) as watch:
        model(bad)
    assert (watch.first.module, watch.first.tensor, watch.first.inf) == ("", "input[0]", 1)


def test_parts_called_without_the_models_forward_are_watched_and_read_at_exit(data: torch.Tensor) -> None:
    # An autoencoder used through its parts (encode, then decode), its own forward never called:
    # an exp that overflows between the parts is the decoder's input, made after the encoder ran.
    torch.manual_seed(0)
    model = nn.ModuleDict({"encoder": nn.Linear(4, 2), "decoder": nn.Linear(2, 4)})
    with watch_non_finite(model) as watch:
        z = torch.exp(model["encoder"](data) * 200.0)
        model["decoder"](z)
        model["decoder"](z)  # the same tensor again: checked once
        assert watch.reads == 0  # no forward of the model ended: nothing read yet
    expected_inf = int(torch.isinf(z).sum())
    assert expected_inf > 0
    first = watch.first
    assert (first.phase, first.module, first.tensor, first.after) == (
        "forward",
        "decoder",
        "input[0]",
        "encoder",
    )
    assert (first.nan, first.inf) == (0, expected_inf)
    assert [(e.module, e.tensor) for e in watch.events].count(("decoder", "input[0]")) == 1
    assert watch.reads == 2  # at exit: one read of every flag, one more to count what was not finite


def test_backward_only_nan_is_attributed_to_the_module_that_made_it(data: torch.Tensor) -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), SafeSqrt(), nn.Linear(8, 1))
    with watch_non_finite(model) as watch:
        loss = model(data).pow(2).mean()
        assert torch.isfinite(loss)
        loss.backward()
    first = watch.first
    assert (first.phase, first.module, first.tensor) == ("backward", "1", "grad input[0]")
    assert not [e for e in watch.events if e.phase == "forward"]
    # the parameters upstream of it are poisoned next, with exact counts taken from .grad
    weight = next(e for e in watch.events if e.tensor == "grad weight")
    assert weight.module == "0"
    assert weight.nan == int(torch.isnan(model[0].weight.grad).sum()) > 0


def test_inf_gradient_from_the_loss_is_named_where_it_enters_the_model(data: torch.Tensor) -> None:
    model = nn.Sequential(nn.Linear(4, 1))
    with watch_non_finite(model) as watch:
        out = model(data)
        (out * torch.tensor(float("inf"))).sum().backward()
    loss, entered = watch.events[:2]  # the loss itself is Inf: the watch flags it first
    assert (loss.phase, loss.tensor, loss.nan + loss.inf) == ("loss", "loss", 1)
    assert loss.where == "loss #1: the tensor backward() started from, computed after the model"
    assert (entered.phase, entered.module, entered.tensor) == ("backward", "", "grad output")
    assert entered.where == "backward #1: grad output of the model"
    assert [e.module for e in watch.events[2:]] == ["0", "0"]  # then the layer's weight and bias


def test_a_loss_module_called_after_the_forward_is_named_for_its_gradient(data: torch.Tensor) -> None:
    class WithLoss(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(4, 1)
            self.loss = SafeSqrt()  # sqrt behind torch.where: its gradient at x < 0 is NaN

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.fc(x)

    model = WithLoss()
    with torch.no_grad():
        model.fc.bias.fill_(-100.0)
    with watch_non_finite(model) as watch:
        model.loss(model(data)).sum().backward()
    assert watch.first.where == "backward #1: grad input[0] of 'loss'"
    assert not [e for e in watch.events if e.tensor == "grad output"]  # one hook on that tensor, relabelled


def test_a_finite_loss_gradient_adds_no_event_and_no_read(data: torch.Tensor) -> None:
    model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 1))
    with count_host_syncs() as counter, watch_non_finite(model) as watch:
        model(data).sum().backward()
    assert watch.events == [] and counter.count == watch.reads


def test_in_place_modules_and_nested_containers_work_and_inner_module_wins(data: torch.Tensor) -> None:
    model = nn.Sequential(nn.Linear(4, 4), nn.Sequential(nn.ReLU(inplace=True), SafeSqrt()), nn.Linear(4, 1))
    with torch.no_grad():
        model[0].bias.fill_(-10.0)  # negative pre-activations: sqrt's gradient is NaN
        model[0].bias[0] = 10.0
    with watch_non_finite(model) as watch:
        model(data).sum().backward()  # full backward hooks would raise on the in-place ReLU here
    first = watch.first
    assert first.phase == "backward" and first.module == "1.1"


def test_one_host_read_per_pass_whatever_the_number_of_modules(data: torch.Tensor) -> None:
    def reads(depth: int) -> int:
        model = nn.Sequential(*[nn.Linear(4, 4) for _ in range(depth)])
        with count_host_syncs() as counter, watch_non_finite(model) as watch:
            model(data).sum().backward()
        assert watch.reads == counter.count
        return counter.count

    assert reads(2) == reads(30) == 2  # the forward's read and the exit's (the backward)


def test_a_loop_under_the_watch_reads_once_per_forward(data: torch.Tensor) -> None:
    model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 1))
    with watch_non_finite(model) as watch, count_host_syncs() as counter:
        for _ in range(3):
            model(data).sum().backward()
    assert counter.count == 3  # each forward's read also collects the backward before it
    assert watch._passes == {"forward": 3, "backward": 3}


def test_events_are_numbered_by_pass(data: torch.Tensor) -> None:
    model = nn.Sequential(nn.Linear(4, 2))
    bad = data.clone()
    bad[0, 0] = float("nan")
    with watch_non_finite(model) as watch:
        model(data)
        model(bad)
    assert [(e.pass_index, e.tensor) for e in watch.events] == [(2, "input[0]"), (2, "output")]


def test_raise_on_first_raises_at_the_first_tensor_and_removes_hooks(data: torch.Tensor) -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), Poison(), nn.Linear(4, 2))
    watch = watch_non_finite(model, raise_on_first=True)
    with pytest.raises(NonFiniteError, match=r"forward #1: output of '1'.*nan=1 inf=1") as info, watch:
        model(data)
    assert info.value.nan == 1 and info.value.inf == 1
    assert _hooks(model) == 0


def test_hooks_are_removed_on_exit_and_on_error(data: torch.Tensor) -> None:
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 1))
    assert _hooks(model) == 0
    with watch_non_finite(model) as watch:
        assert watch.active and _hooks(model) > 0
        model(data).sum().backward()
    assert not watch.active and _hooks(model) == 0
    with pytest.raises(ValueError, match="boom"), watch_non_finite(model):
        model(data)
        raise ValueError("boom")
    assert _hooks(model) == 0
    # a graph built under the watch and run backward afterwards records nothing
    with watch_non_finite(model) as watch:
        out = model(data.requires_grad_())
    out.sum().backward()
    assert watch.events == [] and watch._pending == []


def test_no_hook_keeps_the_incoming_gradient(data: torch.Tensor) -> None:
    """AccumulateGrad steals the incoming buffer unless someone else holds a reference to it."""
    model = nn.Sequential(nn.Linear(4, 64), nn.Linear(64, 1))
    weight = model[1].weight

    def run(extra_ref: bool) -> bool:
        model.zero_grad(set_to_none=True)
        seen, kept = [], []
        with watch_non_finite(model):
            handle = weight.register_hook(lambda g: seen.append(g.data_ptr()))
            if extra_ref:
                keeper = weight.register_hook(lambda g: kept.append(g))
            model(data).sum().backward()
        handle.remove()
        if extra_ref:
            keeper.remove()
        return seen[0] == weight.grad.data_ptr()

    assert run(extra_ref=False)  # the watch kept nothing: the buffer became .grad
    assert not run(extra_ref=True)  # the check can fail: a kept reference forces a copy


def test_repr_html_and_bad_input(data: torch.Tensor) -> None:
    model = nn.Sequential(nn.Linear(4, 4), Poison())
    with watch_non_finite(model) as watch:
        model(data)
    text = repr(watch)
    assert "NonFiniteWatch(inactive, 1 forward and 0 backward passes, 1 non-finite tensors)" in text
    assert "output" in text and "forward" in text
    assert "<table" in watch._repr_html_()
    assert watch.first.where == "forward #1: output of '1'"
    with pytest.raises(TypeError, match=r"torch\.nn\.Module"):
        watch_non_finite("model")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="raise_on_first"):
        watch_non_finite(model, raise_on_first="yes")  # type: ignore[arg-type]
    active = NonFiniteWatch(model)
    with active, pytest.raises(RuntimeError, match="already active"):
        active.__enter__()


def test_forward_counts_are_exact_even_for_outputs_autograd_does_not_keep(data: torch.Tensor) -> None:
    model = nn.Sequential(nn.Linear(4, 3), nn.Sigmoid(), nn.Linear(3, 1))  # Linear 0's output is not saved
    bad = data.clone()
    bad[1, 0] = float("nan")
    with watch_non_finite(model) as watch:
        model(bad).sum().backward()
    forward = [(e.module, e.nan, e.inf) for e in watch.events if e.phase == "forward"]
    assert forward == [("", 1, 0), ("0", 3, 0), ("1", 3, 0), ("2", 1, 0)]


class _Checkpointed(nn.Module):
    def __init__(self, reentrant: bool) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.reentrant = reentrant
        self.block = nn.Sequential(nn.Linear(4, 4), nn.GELU(), nn.Linear(4, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.utils.checkpoint.checkpoint(self.block, x, use_reentrant=self.reentrant)


@pytest.mark.parametrize("reentrant", [False, True])
def test_checkpointing_computes_the_same_under_the_watch_and_recomputation_is_no_new_pass(
    data: torch.Tensor, reentrant: bool
) -> None:
    def grads(watched: bool) -> list[torch.Tensor]:
        model = _Checkpointed(reentrant)
        x = data.clone().requires_grad_(True)  # an input that requires grad: the watch hooks it
        if watched:
            with watch_non_finite(model) as watch:
                model(x).pow(2).sum().backward()
            assert watch.events == []
            assert repr(watch).startswith("NonFiniteWatch(inactive, 1 forward and 1 backward passes")
        else:
            model(x).pow(2).sum().backward()
        return [x.grad, *(p.grad for p in model.parameters())]

    for plain, watched in zip(grads(False), grads(True)):
        assert torch.equal(plain, watched)


class _MaskedPolicy(nn.Module):
    """Logits masked with -inf between modules, then a softmax module."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.logits = nn.Linear(4, 3)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
        return self.softmax(self.logits(x).masked_fill(~legal, float("-inf")))


def test_a_minus_inf_mask_is_no_event_unless_its_pass_turns_non_finite(data: torch.Tensor) -> None:
    model = _MaskedPolicy()
    with watch_non_finite(model) as watch:
        model(data, torch.tensor([True, False, True]))[:, 0].sum().backward()
    assert watch.events == [] and watch.first is None
    assert [(e.module, e.tensor, e.inf) for e in watch.masks] == [("softmax", "input[0]", len(data))]
    assert "1 masks holding only -inf" in repr(watch)
    with watch_non_finite(model, raise_on_first=True) as watch:  # a mask raises nothing either
        model(data, torch.tensor([True, False, True]))
    assert watch.events == [] and len(watch.masks) == 1
    watch = watch_non_finite(model, raise_on_first=True)  # every action masked: -inf only is no mask
    with pytest.raises(NonFiniteError, match=r"input\[0\] of 'softmax'"), watch:
        model(data, torch.zeros(3, dtype=torch.bool))
    with watch_non_finite(model) as watch:  # every action masked: a softmax of only -inf is NaN
        model(data, torch.zeros(3, dtype=torch.bool))
    assert [(e.module, e.tensor, e.nan, e.inf) for e in watch.events][:2] == [
        ("softmax", "input[0]", 0, 3 * len(data)),
        ("softmax", "output", 3 * len(data), 0),
    ]
    assert watch.masks == []
