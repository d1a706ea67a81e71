"""The statistics a traced step records of each tensor (proving/trace.py `tensor_stats`), against torch's
own reductions on the same values: NaN and Inf never hidden, nothing made up for an empty tensor."""

from __future__ import annotations

import math

import pytest
import torch

from autograd_course.proving.trace import tensor_stats

NAN, INF = float("nan"), float("inf")


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _torch_says(t: torch.Tensor) -> dict:
    d = t.detach().double()
    bad = d[~torch.isfinite(d)]
    return {
        "shape": list(t.shape),
        "requires_grad": t.requires_grad,
        "nan": int(torch.isnan(d).sum()),
        "inf": int(torch.isinf(d).sum()),
        "min": float(torch.min(d)) if d.numel() else None,
        "max": float(torch.max(d)) if d.numel() else None,
        "mean": float(torch.mean(d)) if d.numel() else None,
        "nonfinite_sample": [float(v) for v in bad.flatten()[:5]],
    }


CASES = {
    "finite matrix": lambda: torch.randn(16, 8, generator=torch.Generator().manual_seed(0)),
    "one NaN, both Infs": lambda: torch.tensor([1.0, NAN, INF, -INF, 2.0]),
    "all NaN, more than the sample": lambda: torch.full((7,), NAN),
    "Infs only": lambda: torch.tensor([[INF, 3.0], [-2.0, -INF]]),
    "0-dim": lambda: torch.tensor(3.5),
    "empty": lambda: torch.empty(0, 4),
    "bfloat16": lambda: torch.tensor([1.5, -2.25, 1e30], dtype=torch.bfloat16),
    "half with an overflow": lambda: torch.tensor([60000.0, 1.0], dtype=torch.float16) * 2,
    "requires grad, non-leaf": lambda: torch.ones(3, requires_grad=True) * 2,
    "strided view": lambda: torch.arange(12.0).reshape(3, 4).t()[1:],
}


@pytest.mark.parametrize("case", CASES)
def test_tensor_stats_agree_with_torchs_own_reductions(case: str) -> None:
    t = CASES[case]()
    stats = tensor_stats(t)
    expected = _torch_says(t)
    for key, value in expected.items():
        assert _same(stats[key], value), (case, key, stats[key], value)
    assert (stats["lineage"] is None) == (expected["nan"] + expected["inf"] == 0)
