"""debug_tensor: autograd state and statistics of one tensor, checked against torch itself."""

import math
import warnings

import pytest
import torch

from helpers import TensorInfo, count_host_syncs, debug_tensor


def test_leaf_that_requires_grad():
    x = torch.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
    info = debug_tensor("x", x)
    assert isinstance(info, TensorInfo)
    assert (info.name, info.shape, info.dtype, info.device) == ("x", (2, 2), torch.float32, x.device)
    assert (info.requires_grad, info.is_leaf, info.grad_fn, info.has_grad) == (True, True, None, False)
    assert info.min == x.min().item() and info.max == x.max().item()
    assert info.mean == pytest.approx(x.mean().item())
    assert (info.nan, info.inf) == (0, 0)


def test_non_leaf_names_its_grad_fn_and_has_no_grad():
    x = torch.randn(3, requires_grad=True)
    y = x.exp()
    info = debug_tensor("y", y)
    assert (info.requires_grad, info.is_leaf) == (True, False)
    assert info.grad_fn == type(y.grad_fn).__name__ == "ExpBackward0"
    assert info.has_grad is False


def test_has_grad_follows_backward_for_leaves_and_retained_non_leaves():
    x = torch.randn(3, requires_grad=True)
    y = x * 2
    y.retain_grad()
    assert not debug_tensor("x", x).has_grad
    y.sum().backward()
    assert debug_tensor("x", x).has_grad and debug_tensor("y", y).has_grad


def test_non_leaf_grad_warning_is_never_triggered():
    x = torch.randn(3, requires_grad=True)
    y = x * 2
    y.sum().backward(retain_graph=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # torch warns on reading a non-leaf's .grad
        info = debug_tensor("y", y)
        repr(info)
        info._repr_html_()
    assert info.has_grad is False
    with pytest.warns(UserWarning, match="is not a leaf"):  # the warning debug_tensor avoids exists
        _ = y.grad


def test_constant_tensor_is_a_leaf_without_grad():
    info = debug_tensor("c", torch.ones(2))
    assert (info.requires_grad, info.is_leaf, info.grad_fn, info.has_grad) == (False, True, None, False)


def test_nan_and_inf_counts_match_torch():
    t = torch.tensor([1.0, float("nan"), float("inf"), -float("inf"), float("nan"), 2.0])
    info = debug_tensor("t", t)
    assert info.nan == int(torch.isnan(t).sum()) == 2
    assert info.inf == int(torch.isinf(t).sum()) == 2
    assert math.isnan(info.min) and math.isnan(info.max), "a NaN must never be hidden by min/max"


def test_statistics_match_torch_in_half_precision():
    t = torch.tensor([60000.0, 60000.0, -1.0], dtype=torch.float16)
    info = debug_tensor("h", t)
    assert info.max == 60000.0 and info.min == -1.0
    assert info.mean == pytest.approx(t.double().mean().item())  # a half-precision sum would overflow


def test_complex_statistics_are_of_magnitudes():
    z = torch.tensor([3 + 4j, 0 + 1j])
    info = debug_tensor("z", z)
    assert (info.min, info.max) == (1.0, 5.0)
    assert info.mean == pytest.approx(3.0)


def test_integer_and_empty_tensors_have_no_statistics():
    ints = debug_tensor("i", torch.arange(4))
    assert (ints.min, ints.max, ints.mean, ints.nan, ints.inf) == (None,) * 5
    empty = debug_tensor("e", torch.zeros(0, 3))
    assert empty.shape == (0, 3) and empty.min is None and (empty.nan, empty.inf) == (0, 0)


def test_one_host_read_and_rendering_reads_nothing():
    t = torch.randn(1000)
    with count_host_syncs() as syncs:
        info = debug_tensor("t", t)
    assert syncs.count == 1, syncs
    with count_host_syncs() as syncs:
        text, page = repr(info), info._repr_html_()
    assert syncs.count == 0, syncs
    assert text.startswith("t: shape=(1000,) dtype=float32") and "\x1b[" not in text
    assert "<table" in page and "<td>t</td>" in page


def test_the_tensor_is_left_alone():
    x = torch.randn(4, requires_grad=True)
    before = x.detach().clone()
    version = x._version
    debug_tensor("x", x)
    assert torch.equal(x.detach(), before) and x._version == version and x.grad is None


@pytest.mark.parametrize("bad", [[1.0, 2.0], 3.0, None])
def test_a_non_tensor_is_a_clear_error(bad):
    with pytest.raises(TypeError, match=r"expected 'x' to be a torch\.Tensor, got"):
        debug_tensor("x", bad)


def test_sparse_statistics_count_the_unstored_zeros():
    dense = torch.tensor([[0.0, 2.0, 0.0], [3.0, 0.0, float("inf")]])
    info = debug_tensor("s", dense.to_sparse())
    assert (info.min, info.max) == (0.0, math.inf)
    assert (info.nan, info.inf) == (0, 1)
    positive = torch.tensor([[0.0, 2.0], [4.0, 0.0]]).to_sparse()
    info = debug_tensor("p", positive)
    assert (info.min, info.max, info.mean) == (0.0, 4.0, 1.5)  # mean over all 4 elements
    full = torch.tensor([1.0, 3.0]).to_sparse()  # nothing unstored: no extra zero
    assert debug_tensor("f", full).min == 1.0
    empty = torch.zeros(2, 2).to_sparse()
    assert (debug_tensor("e", empty).min, debug_tensor("e", empty).max) == (0.0, 0.0)


def test_sparse_embedding_gradient_is_described():
    emb = torch.nn.Embedding(5, 2, sparse=True)
    emb(torch.tensor([1, 1])).sum().backward()
    info = debug_tensor("emb.weight.grad", emb.weight.grad)
    assert info.max == 2.0 and info.min == 0.0
    assert info.mean == pytest.approx(emb.weight.grad.to_dense().mean().item())
