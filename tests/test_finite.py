"""assert_finite: passes finite tensors through, names and counts what is not finite."""

import pytest
import torch

from helpers import NonFiniteError, assert_finite, count_host_syncs


def test_finite_tensor_passes_through_with_one_host_read():
    t = torch.randn(100)
    with count_host_syncs() as reads:
        result = assert_finite("t", t)
    assert result is t
    assert reads.count == 1, reads


def test_non_finite_raises_naming_the_tensor_with_torch_counts():
    t = torch.tensor([1.0, float("nan"), float("inf"), 2.0, float("nan"), -float("inf")])
    with pytest.raises(NonFiniteError) as caught:
        assert_finite("activations", t)
    err = caught.value
    assert isinstance(err, RuntimeError)
    assert (err.name, err.nan, err.inf) == ("activations", int(t.isnan().sum()), int(t.isinf().sum()))
    assert str(err).startswith("activations contains non-finite values: nan=2 inf=2 of 6 elements")
    assert str(err).endswith("sample=[nan, inf, nan, -inf]")
    assert len(err.sample) == 4


def test_sample_is_short():
    t = torch.full((1000,), float("nan"))
    with pytest.raises(NonFiniteError, match=r"nan=1000 inf=0 of 1000 elements") as caught:
        assert_finite("x", t, sample_size=3)
    assert len(caught.value.sample) == 3


def test_a_real_forward_overflow_is_caught():
    x = torch.tensor([10.0, 100.0])
    with pytest.raises(NonFiniteError, match=r"^logits ") as caught:
        assert_finite("logits", x.exp())  # exp(100) overflows float32
    assert (caught.value.nan, caught.value.inf) == (0, 1)


def test_large_finite_values_are_finite():
    t = torch.full((100, 100), 1e30)
    assert torch.isinf(torch.linalg.vector_norm(t))  # an L2 norm would call this non-finite
    assert assert_finite("big", t) is t


def test_integer_bool_complex_and_sparse_tensors():
    assert_finite("ints", torch.arange(5))
    assert_finite("mask", torch.ones(3, dtype=torch.bool))
    assert_finite("z", torch.tensor([1 + 2j]))
    with pytest.raises(NonFiniteError, match="nan=1 inf=0"):
        assert_finite("z", torch.tensor([complex(float("nan"), 0.0), 1j]))
    sparse = torch.tensor([[0.0, float("inf")], [0.0, 0.0]]).to_sparse()
    with pytest.raises(NonFiniteError, match="nan=0 inf=1"):
        assert_finite("sparse", sparse)


def test_requires_grad_tensor_is_not_touched():
    x = torch.randn(3, requires_grad=True)
    y = x * 2
    assert assert_finite("y", y) is y
    y.sum().backward()  # the graph is intact
    assert torch.equal(x.grad, torch.full((3,), 2.0))


def test_a_non_tensor_is_a_clear_error():
    with pytest.raises(TypeError, match=r"expected 'loss' to be a torch\.Tensor, got float"):
        assert_finite("loss", 1.0)
