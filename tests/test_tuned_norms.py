"""The gradient report's tuned path (helpers._tuned_norms): norms and exact_figures on both of its
kernel paths, and its figures against the readable definition, helpers.gradients.gradient_figures."""

import math

import pytest
import torch

from helpers import _tuned_norms, count_host_syncs
from helpers._tuned_norms import exact_figures, figures, norms, second_look
from helpers.gradients import gradient_figures


def _zoo() -> list[torch.Tensor]:
    """Gradients of every kind a report meets: shapes that stack, large, strided, half, odd."""
    torch.manual_seed(0)
    return [
        torch.randn(32, 32),
        torch.randn(32, 32),
        torch.randn(32),
        torch.randn(600, 600),  # larger than one scratch buffer
        torch.randn(700, 500).t(),  # large and not contiguous
        torch.randn(10, 10).t(),
        torch.randn(8, 8).half() * 1000,  # squares overflow half: summed in float32
        torch.randn(4, dtype=torch.float64),
        torch.zeros(0),
        torch.zeros(3, 3),
        torch.tensor([1 + 1j, 3 - 4j]),
        torch.zeros(4, 2).to_sparse(),
        torch.tensor([[0.0, -3.0], [2.0, 0.0]]).to_sparse(),
    ]


def _expected(t: torch.Tensor) -> float:
    """torch's own norm, in float64, of the stored values."""
    v = t.coalesce().values() if t.is_sparse else t
    wide = torch.complex128 if v.is_complex() else torch.float64
    return torch.linalg.vector_norm(v.to(wide)).item()


@pytest.mark.parametrize("foreach", [False, True], ids=["public", "foreach"])
def test_each_path_gives_torch_norms(monkeypatch, foreach):
    tensors = _zoo()
    monkeypatch.setattr(_tuned_norms, "use_foreach", lambda device: foreach)
    got = norms(tensors)
    assert got == pytest.approx([_expected(t) for t in tensors], rel=1e-5)


def test_the_foreach_path_and_the_public_path_agree(monkeypatch):
    has_foreach = _tuned_norms._FOREACH_NORM is not None
    assert has_foreach, "this torch has no _foreach_norm: only the public path runs"
    tensors = _zoo()
    calls = []
    real = _tuned_norms._FOREACH_NORM

    def spy(values, *args, **kwargs):
        calls.append(len(values))
        return real(values, *args, **kwargs)

    monkeypatch.setattr(_tuned_norms, "_FOREACH_NORM", spy)
    monkeypatch.setattr(_tuned_norms, "use_foreach", lambda device: False)
    public = norms(tensors)
    assert calls == []
    monkeypatch.setattr(_tuned_norms, "use_foreach", lambda device: True)
    fused = norms(tensors)
    assert sorted(calls) == [1, 1, 7]  # the float32 tensors in one call (the empty one skipped), half, double
    assert fused == pytest.approx(public, rel=1e-6)


def test_a_torch_without_foreach_norm_takes_the_public_path(monkeypatch):
    monkeypatch.setattr(_tuned_norms, "_FOREACH_NORM", None)
    assert not _tuned_norms.use_foreach(torch.device("cuda"))
    assert norms(_zoo()) == pytest.approx([_expected(t) for t in _zoo()], rel=1e-5)


def test_the_cpu_takes_the_public_path_and_reads_once():
    assert not _tuned_norms.use_foreach(torch.device("cpu"))
    assert _tuned_norms.use_foreach(torch.device("cuda")) is (_tuned_norms._FOREACH_NORM is not None)
    with count_host_syncs() as reads:
        norms(_zoo())
    assert reads.count == 1, reads
    assert norms([]) == [] and exact_figures([]) == []


def test_many_small_tensors_of_one_shape_share_kernels():
    """2,000 biases fill the scratch buffer in batches: each norm still its own tensor's."""
    torch.manual_seed(1)
    tensors = [torch.randn(32) * (i + 1) for i in range(2000)] + [torch.randn(64, 64) for _ in range(40)]
    assert norms(tensors) == pytest.approx([_expected(t) for t in tensors], rel=1e-5)


@pytest.mark.parametrize(
    ("value", "large_doubtful"),
    [
        (1e-25, True),  # squares underflow float32: the norm reads 0
        (1e-21, True),  # squares subnormal: digits lost
        (0.0, True),  # zero: exact, but told from tiny only by a second look
        (3e19, True),  # squares overflow float32: the norm reads inf
        (float("nan"), True),
        (float("inf"), True),
        (1e-9, False),  # small values, exact
        (1e17, False),  # large values, exact
    ],
)
@pytest.mark.parametrize("numel", [10, 5000], ids=["stacked", "alone"])
def test_only_norms_float32_cannot_give_are_looked_at_again(value, large_doubtful, numel):
    t = torch.full((numel,), value)
    (n,) = norms([t])
    non_finite = not math.isfinite(value)
    # A small tensor is summed in float64 (exact): only NaN and Inf need a second look, to count them.
    expected = [0] if (large_doubtful if numel > _tuned_norms._SMALL else non_finite) else []
    assert _tuned_norms.to_look_at([t], [n]) == expected, n
    (nan, inf, exact) = exact_figures([t])[0]
    assert (nan, inf) == (int(t.isnan().sum()), int(t.isinf().sum()))
    want = torch.linalg.vector_norm(t.double()).item()
    assert exact == pytest.approx(want, rel=1e-12, nan_ok=True)
    if not expected:
        assert n == pytest.approx(want, rel=1e-5)  # float32 sums of 5,000 squares drift in the 6th digit
        return
    with count_host_syncs() as reads:
        (again,) = second_look([t], [n])
    # measured exactly, or rescaled by a power of 2 and summed in float32: counts exact
    assert again[:2] == (nan, inf) and again[2] == pytest.approx(want, rel=1e-5, nan_ok=True)
    # A second read only for a large tensor: an Inf that is not an overflow, or a norm that read 0
    # over elements that are not all +0.0 (the byte test could not prove it zero).
    second = numel > _tuned_norms._SMALL and (value == float("inf") or (n == 0.0 and value != 0.0))
    assert reads.count == (2 if second else 1), reads


@pytest.mark.parametrize(
    "tensor",
    [
        torch.full((5000,), -0.0),  # -0.0 has a byte set: measured, and still 0
        torch.zeros(100, 100).t(),  # not contiguous: copied for the byte test
        torch.zeros(5000).index_fill_(0, torch.tensor([17]), 1e-44),  # one subnormal among zeros
        torch.full((5000,), 1e-40),  # every element subnormal
        torch.zeros(5000, dtype=torch.bfloat16).index_fill_(0, torch.tensor([3]), 1e-30),
    ],
    ids=["negative zero", "transposed", "one subnormal", "all subnormal", "bfloat16"],
)
def test_a_norm_that_reads_zero_is_settled_exactly(tensor):
    (n,) = norms([tensor])
    assert n == 0.0 and _tuned_norms.to_look_at([tensor], [n]) == [0]
    ((nan, inf, exact),) = second_look([tensor], [n])
    assert (nan, inf) == (0, 0)
    assert exact == torch.linalg.vector_norm(tensor.double()).item()  # exact: float64 of every element


def test_exact_figures_count_complex_and_sparse_values():
    z = torch.tensor([complex(float("nan"), 0), complex(float("inf"), 1), 1 + 0j])
    s = torch.tensor([[0.0, float("inf")], [2.0, 0.0]]).to_sparse()
    (zn, zi, znorm), (sn, si, snorm) = exact_figures([z, s])
    assert (zn, zi, sn, si) == (1, 1, 0, 1)
    assert math.isnan(znorm) and snorm == math.inf


def test_a_large_norm_is_torchs_own_float32_norm():
    """The figure clip_grad_norm_ and get_total_norm use: a float32 sum of a million squares
    drifts in the fourth digit, below the three a report shows."""
    t = torch.full((1000, 1000), 0.1)
    (n,) = norms([t])
    assert n == torch.linalg.vector_norm(t).item()
    assert n == pytest.approx(t.double().norm().item(), rel=1e-3)


def _hard_cases() -> list[torch.Tensor]:
    """Gradients where float32 squares cannot be trusted, large (measured alone) and small (stacked)."""
    torch.manual_seed(1)
    big = torch.randn(256, 256)
    with_nan, with_inf, both = big.clone(), big.clone(), big.clone()
    with_nan[3, 4] = math.nan
    with_inf[5, 6] = -math.inf
    both[0, :3] = torch.tensor([math.nan, math.inf, -math.inf])
    small_nan = torch.randn(32)
    small_nan[0] = math.nan
    return [
        with_nan,
        with_inf,
        both,
        small_nan,
        torch.full((256, 256), 1e-40),  # subnormal float32: squares underflow to 0
        big * 1e-30,  # normal elements whose squares underflow: the norm reads tiny or 0
        torch.zeros(256, 256),  # all zero: proven by its bytes
        -torch.zeros(256, 256),  # -0.0: its bytes are not zero, the norm is
        big * 1e25,  # finite elements whose squares overflow float32
        torch.full((64,), 3e38),  # small and overflowing: stacked, summed in float64
        torch.zeros(32),
        torch.randn(8, 8).half() * 1e4,
        torch.tensor([1e-45, 0.0, 3e38]),  # a subnormal beside a huge value
    ]


@pytest.fixture(params=[1, 2], ids=["1 thread", "2 threads: element-wise passes in pieces"])
def threads(request):
    before = torch.get_num_threads()
    torch.set_num_threads(request.param)
    yield request.param
    torch.set_num_threads(before)


@pytest.mark.parametrize("foreach", [False, True], ids=["public", "foreach"])
def test_the_tuned_figures_are_the_readable_definition(monkeypatch, foreach, threads):
    tensors = _hard_cases() + _zoo()
    monkeypatch.setattr(_tuned_norms, "use_foreach", lambda device: foreach)
    pieces = len(_tuned_norms._pieces(tensors[0]))
    assert pieces == (1 if threads == 1 else 4)  # 65,536 elements in pieces of 16,384 with 2 threads
    norm, nan, inf = figures(tensors)
    want = [gradient_figures(t) for t in tensors]
    assert list(zip(nan, inf)) == [(w[1], w[2]) for w in want]
    for got, (expected, _, _), t in zip(norm, want, tensors):
        if math.isnan(expected):
            assert math.isnan(got), (t.shape, got)
        else:
            assert got == pytest.approx(expected, rel=1e-5, abs=0.0), (t.shape, t.dtype, got, expected)
    assert sum(n > 0 for n in nan) == 3 and sum(i > 0 for i in inf) == 2  # the cases hold what they say
    assert 0.0 < want[4][0] < 1e-35 and want[6][0] == 0.0 and math.isfinite(want[8][0]) and want[8][0] > 1e25
