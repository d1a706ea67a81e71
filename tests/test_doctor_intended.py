"""diagnose told what is intended: several optimizers, parameters that train only at some steps."""

from __future__ import annotations

import pytest
import torch
from field_corpus.case import loss_step
from torch import nn

from helpers import Stage, diagnose

X = torch.randn(16, 4, generator=torch.Generator().manual_seed(0))
Y = X.sum(1, keepdim=True)


def _two_parts() -> nn.ModuleDict:
    torch.manual_seed(0)
    return nn.ModuleDict({"body": nn.Linear(4, 4), "head": nn.Linear(4, 1)})


def test_several_optimizers_given_as_a_list_each_holding_a_part() -> None:
    model = _two_parts()
    first = torch.optim.Adam(model["body"].parameters(), lr=1e-2)
    second = torch.optim.SGD(model["head"].parameters(), lr=1e-2)

    def step() -> torch.Tensor:
        for o in (first, second):
            o.zero_grad()
        loss = ((model["head"](model["body"](X)) - Y) ** 2).mean()
        loss.backward()
        for o in (first, second):
            o.step()
        return loss

    assert diagnose(step, model, [first, second]).ok
    assert diagnose(step, model, first).ok  # the step's other optimizer is found in its closure
    alone = loss_step(first, lambda: ((model["head"](model["body"](X)) - Y) ** 2).mean())
    found = diagnose(alone, model, (first,))  # the head is in no optimizer: still a finding
    assert found.stage is Stage.NOT_IN_OPTIMIZER and found.names == ["head.weight", "head.bias"]
    with pytest.raises(ValueError, match="non-empty list of optimizers"):
        diagnose(step, model, [])
    with pytest.raises(TypeError, match=r"torch\.optim\.Optimizer"):
        diagnose(step, model, [first, "second"])


class _Skipping(nn.Module):
    """A residual block that runs only at even calls (stochastic depth, made deterministic)."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.inp, self.block, self.out = nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 1)
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        h = self.inp(x)
        return self.out(h + self.block(h) if self.calls % 2 == 0 else h)


def test_conditional_names_what_trains_only_at_some_steps() -> None:
    model = _Skipping()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    step = loss_step(optimizer, lambda: ((model(X) - Y) ** 2).mean())
    found = diagnose(step, model, optimizer)
    assert found.stage is Stage.GRAD_MISSING and found.names == ["block.weight", "block.bias"]
    assert "conditional=[...]" in found.advice
    assert diagnose(step, model, optimizer, conditional=["block"]).ok
    assert diagnose(step, model, optimizer, conditional="block").ok
    with pytest.raises(ValueError, match=r"conditional names no parameter or module: \['blocks'\]"):
        diagnose(step, model, optimizer, conditional=["blocks"])


def test_the_gradient_norm_limit_scales_with_the_loss_unless_max_grad_norm_is_given() -> None:
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    x = torch.randn(4096, 4, generator=torch.Generator().manual_seed(1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    summed = loss_step(optimizer, lambda: ((model(x) - x.sum(1, keepdim=True)) ** 2).sum())
    assert diagnose(summed, model, optimizer).ok  # a norm of thousands beside a loss of thousands
    found = diagnose(summed, model, optimizer, max_grad_norm=1000)
    assert found.stage is Stage.GRAD_MAGNITUDE and "> max_grad_norm=1000" in found.evidence[0]
    wild = loss_step(optimizer, lambda: torch.sin(1e6 * model(x)).mean())  # |loss| <= 1, |g| ~ 1e6
    found = diagnose(wild, model, optimizer)
    assert found.stage is Stage.GRAD_MAGNITUDE
    assert "(1000 x max(1, |loss|); set the limit with diagnose(..., max_grad_norm=...))" in found.evidence[0]


@pytest.mark.parametrize("order", ["step_then_backward", "backward_then_step"])
def test_a_step_before_backward_had_no_gradient_to_use(order: str) -> None:
    model = _two_parts()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = ((model["head"](model["body"](X)) - Y) ** 2).mean()
        if order == "step_then_backward":
            optimizer.step()
            loss.backward()
        else:
            loss.backward()
            optimizer.step()
        return loss

    found = diagnose(step, model, optimizer)
    if order == "step_then_backward":
        assert found.stage is Stage.PARAMS_NOT_UPDATED and "body.weight" in found.names
    else:
        assert found.ok


def test_a_gradient_that_arrives_after_its_optimizers_step_is_not_the_steps() -> None:
    """A critic's output bias: 0 gradient under the critic's loss (a difference of means), a non-zero one
    from the generator's backward through the critic after the critic's step (WGAN)."""
    model = _two_parts()  # body: the generator, head: the critic
    opt_g = torch.optim.SGD(model["body"].parameters(), lr=0.1)
    opt_d = torch.optim.SGD(model["head"].parameters(), lr=0.1)

    def step() -> torch.Tensor:
        opt_d.zero_grad()
        d_loss = model["head"](model["body"](X).detach()).mean() - model["head"](X).mean()
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss = -model["head"](model["body"](X)).mean()
        g_loss.backward()
        opt_g.step()
        return d_loss

    found = diagnose(step, model, [opt_d, opt_g])
    assert found.ok, repr(found)
