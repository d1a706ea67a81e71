"""diagnose leaves no trace of what a forward writes in place: Embedding(max_norm=...), forward hooks."""

from __future__ import annotations

import warnings

import pytest
import torch
from field_corpus.case import loss_step
from torch import nn

from helpers import diagnose


class _Renormed(nn.Module):
    def __init__(self, hooked: bool) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.embed = nn.Embedding(10, 4, max_norm=None if hooked else 1.0)
        self.out = nn.Linear(4, 1)
        with torch.no_grad():
            self.embed.weight.mul_(3)
        if hooked:  # a max-norm constraint on the output layer, written by a forward pre-hook
            self.out.register_forward_pre_hook(_constrain)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.out(self.embed(ids).mean(1))


def _constrain(module: nn.Module, args: tuple) -> None:
    with torch.no_grad():
        module.weight.mul_(0.5)


@pytest.mark.parametrize("hooked", [False, True])
def test_rows_renormalised_and_weights_a_hook_writes_are_put_back(hooked: bool) -> None:
    ids = torch.tensor([[1, 2], [3, 1]])
    model = _Renormed(hooked)
    before = {n: p.detach().clone() for n, p in model.state_dict().items()}
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    step = loss_step(optimizer, lambda: model(ids).pow(2).mean())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not even "could not restore"
        assert diagnose(step, model, optimizer).ok
    after = model.state_dict()
    assert all(torch.equal(before[n], after[n]) for n in before), hooked
    model(ids)  # the forward does write in place: the check above can fail
    assert not all(torch.equal(before[n], model.state_dict()[n]) for n in before)
