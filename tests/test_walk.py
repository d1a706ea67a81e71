"""model_tensors and stray_tensors: one walk gives what named_parameters(), the unregistered search
and the parameter-copy search give."""

import torch
from torch import nn
from torch.nn.utils import parametrize

from helpers._walk import model_tensors, stray_tensors, unregistered_tensors


class _Symmetric(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.triu() + x.triu(1).transpose(-1, -2)


class _Odd(nn.Module):
    """Shared layers, a None parameter, a plain list of layers and a loose tensor."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(3, 3)
        self.b = self.a  # the same module twice
        self.head = nn.Linear(3, 1)
        self.head.weight = self.a.weight  # a tied parameter
        self.register_parameter("missing", None)
        self.blocks = [nn.Linear(3, 3), nn.Linear(3, 3)]  # never registered
        self.scale = nn.Parameter(torch.ones(1)).detach().requires_grad_()  # a plain attribute
        self.frozen_extra = [torch.zeros(2)]  # does not require grad: not trainable


def _models() -> list[nn.Module]:
    torch.manual_seed(0)
    nested = nn.Sequential(nn.Linear(2, 4), nn.Sequential(nn.ReLU(), nn.Linear(4, 4)), nn.LayerNorm(4))
    params = nn.ParameterList([nn.Parameter(torch.randn(2)) for _ in range(5)])
    tied = nn.Sequential(nn.Embedding(10, 4), nn.Linear(4, 10))
    tied[1].weight = tied[0].weight
    param_dict = nn.ParameterDict({"x": nn.Parameter(torch.ones(3)), "y": nn.Parameter(torch.ones(1))})
    symmetric = nn.Linear(3, 3)
    parametrize.register_parametrization(symmetric, "weight", _Symmetric())
    return [nested, params, tied, param_dict, symmetric, _Odd(), nn.LSTM(3, 4, num_layers=2)]


def test_the_registered_half_is_named_parameters_in_order_names_and_objects():
    for model in _models():
        named, _ = model_tensors(model)
        expected = list(model.named_parameters())
        assert [n for n, _ in named] == [n for n, _ in expected], type(model).__name__
        assert all(p is q for (_, p), (_, q) in zip(named, expected))


def test_the_unregistered_half_is_what_unregistered_tensors_finds():
    for model in _models():
        _, unregistered = model_tensors(model)
        expected = unregistered_tensors(model)
        assert [(n, id(t)) for n, t in unregistered] == [(n, id(t)) for n, t in expected]
    _, found = model_tensors(_Odd())
    assert [n for n, _ in found] == [
        "blocks[0].weight",
        "blocks[0].bias",
        "blocks[1].weight",
        "blocks[1].bias",
        "scale",
    ]


class _Copied(nn.Module):
    """A parameter copy (`nn.Parameter(...).to(...)` keeps a non-leaf) and a stored activation."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(3, 3)
        self.w = nn.Parameter(torch.ones(3)).to(torch.float64)  # the Parameter itself is lost
        self.seen = self.a(torch.ones(1, 3))  # its graph ends in the model's own parameters
        self.walks = 0

    def named_modules(self, *args, **kwargs):
        self.walks += 1
        return super().named_modules(*args, **kwargs)


def test_stray_tensors_finds_unregistered_leaves_and_parameter_copies_in_one_walk():
    model = _Copied()
    assert stray_tensors(model) == ([], [("w", model.w)]) and model.walks == 1
    for model in _models():
        unregistered, copies = stray_tensors(model)
        assert [(n, id(t)) for n, t in unregistered] == [(n, id(t)) for n, t in unregistered_tensors(model)]
        assert copies == []
