"""TinyNet and make_tiny_problem: the challenge's model and data, reproducible and self-contained."""

import pytest
import torch
from torch import nn

from helpers import TinyNet, make_tiny_problem


def test_architecture_is_4_8_1_with_a_relu():
    net = TinyNet(seed=0)
    assert [(n, tuple(p.shape)) for n, p in net.named_parameters()] == [
        ("fc1.weight", (8, 4)),
        ("fc1.bias", (8,)),
        ("fc2.weight", (1, 8)),
        ("fc2.bias", (1,)),
    ]
    x = torch.randn(5, 4)
    expected = net.fc2(torch.relu(net.fc1(x)))
    assert torch.equal(net(x), expected) and net(x).shape == (5, 1)
    assert isinstance(net, nn.Module)


def test_seeded_nets_are_identical_and_leave_the_global_rng_alone():
    state = torch.get_rng_state()
    a, b = TinyNet(seed=3), TinyNet(seed=3)
    assert torch.equal(torch.get_rng_state(), state)
    for p, q in zip(a.parameters(), b.parameters()):
        assert torch.equal(p, q)
    c = TinyNet(seed=4)
    assert not torch.equal(a.fc1.weight, c.fc1.weight)


def test_unseeded_net_follows_the_global_rng():
    torch.manual_seed(11)
    a = TinyNet()
    torch.manual_seed(11)
    b = TinyNet()
    assert torch.equal(a.fc1.weight, b.fc1.weight)


def test_problem_shapes_reproducibility_and_global_rng():
    state = torch.get_rng_state()
    x, y = make_tiny_problem(seed=0)
    assert torch.equal(torch.get_rng_state(), state)
    assert (x.shape, y.shape, x.dtype, y.dtype) == ((16, 4), (16, 1), torch.float32, torch.float32)
    x2, y2 = make_tiny_problem(seed=0)
    assert torch.equal(x, x2) and torch.equal(y, y2)
    x3, _ = make_tiny_problem(seed=1)
    assert not torch.equal(x, x3)
    xs, ys = make_tiny_problem(n=3)
    assert xs.shape == (3, 4) and ys.shape == (3, 1)
    assert not (x.requires_grad or y.requires_grad)
    assert torch.isfinite(x).all() and torch.isfinite(y).all()


def test_the_problem_is_learnable():
    x, y = make_tiny_problem(seed=0, n=64)
    net = TinyNet(seed=0)
    opt = torch.optim.Adam(net.parameters(), lr=0.05)
    first = None
    for _ in range(150):
        opt.zero_grad()
        loss = ((net(x) - y) ** 2).mean()
        first = first if first is not None else loss.item()
        loss.backward()
        opt.step()
    assert loss.item() < 0.25 * first


def test_bad_size_is_a_clear_error():
    with pytest.raises(ValueError, match="expected n >= 1 samples, got 0"):
        make_tiny_problem(n=0)
