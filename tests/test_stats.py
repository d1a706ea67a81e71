"""abs_stats: the one pass behind every gradient report, on both of its paths."""

import math

import pytest
import torch

from helpers import _stats
from helpers._stats import abs_stats


def _zoo() -> list[torch.Tensor]:
    """Gradients of every kind a report meets: shapes that stack, chunked, strided, half, odd."""
    torch.manual_seed(0)
    return [
        torch.randn(32, 32),
        torch.randn(32, 32),
        torch.randn(32),
        torch.randn(600, 600),  # larger than one chunk
        torch.randn(700, 500).t(),  # larger than one chunk and not contiguous
        torch.randn(10, 10).t(),
        torch.randn(8, 8).half() * 1000,
        torch.randn(4, dtype=torch.float64),
        torch.tensor([1.0, float("nan"), -2.0]),
        torch.tensor([float("inf"), 1.0]),
        torch.tensor([-float("inf"), float("nan")]),
        torch.zeros(0),
        torch.zeros(3, 3),
        torch.tensor([1 + 1j, 3 - 4j]),
        torch.zeros(4, 2).to_sparse(),
        torch.tensor([[0.0, -3.0], [2.0, 0.0]]).to_sparse(),
    ]


def _expected(t: torch.Tensor) -> tuple[float, float]:
    v = (t.coalesce().values() if t.is_sparse else t).abs().double()
    return (v.max().item(), v.sum().item()) if v.numel() else (0.0, 0.0)


def _same(got: list[tuple[float, float]], expected: list[tuple[float, float]]) -> None:
    assert len(got) == len(expected)
    for (m, s), (em, es) in zip(got, expected):
        for value, want in ((m, em), (s, es)):
            if math.isnan(want):
                assert math.isnan(value)
            else:
                assert value == pytest.approx(want, rel=1e-5)


@pytest.mark.parametrize("foreach", [False, True], ids=["per-tensor", "foreach"])
def test_each_path_gives_torch_figures(monkeypatch, foreach):
    tensors = _zoo()
    monkeypatch.setattr(_stats, "use_foreach", lambda device: foreach)
    _same(abs_stats(tensors), [_expected(t) for t in tensors])


def test_the_foreach_path_and_the_fallback_agree(monkeypatch):
    assert _stats._FOREACH_NORM is not None, "this torch has no _foreach_norm: only the fallback runs"
    tensors = _zoo()
    calls = []
    real = _stats._FOREACH_NORM

    def spy(values, *args, **kwargs):
        calls.append(len(values))
        return real(values, *args, **kwargs)

    monkeypatch.setattr(_stats, "_FOREACH_NORM", spy)
    monkeypatch.setattr(_stats, "use_foreach", lambda device: False)
    fallback = abs_stats(tensors)
    assert calls == []
    monkeypatch.setattr(_stats, "use_foreach", lambda device: True)
    fused = abs_stats(tensors)
    assert sorted(calls) == [1, 1, 1, 1, 11, 11]  # max and sum of float32 (11), half and double tensors
    _same(fused, fallback)


def test_the_cpu_takes_the_per_tensor_path_and_reads_once():
    assert not _stats.use_foreach(torch.device("cpu"))
    assert _stats.use_foreach(torch.device("cuda")) is (_stats._FOREACH_NORM is not None)
    from helpers import count_host_syncs

    with count_host_syncs() as reads:
        abs_stats(_zoo())
    assert reads.count == 1, reads
    assert abs_stats([]) == []


def test_sums_are_accurate_on_a_large_tensor():
    t = torch.full((1000, 1000), 0.1)  # a float32 running sum drifts here
    (m, s) = abs_stats([t])[0]
    assert s == pytest.approx(t.double().sum().item(), rel=1e-6) and m == pytest.approx(0.1)
