"""Trusted reference runs of the broken setups, computed in the checking process (proving/trace.py)."""

from __future__ import annotations

from functools import lru_cache

from autograd_course.global_rng import global_rng
from autograd_course.proving.trace import (
    REFERENCE_STEPS,
    BrokenTrace,
    StepRecord,
    close,
    tensor_stats,
    trace_run,
)
from autograd_instructor.challenge.catalogue import build_broken
from autograd_instructor.challenge.variants import Variant

__all__ = ["REFERENCE_STEPS", "BrokenTrace", "StepRecord", "close", "tensor_stats", "trace_broken"]


@lru_cache(maxsize=32)
def trace_broken(variant: Variant, seed: int) -> BrokenTrace:
    """Run one variant's broken setup on CPU and record its first steps (cached)."""
    code = build_broken(variant)
    with global_rng(fork=False):  # seeds the global RNG, as it always did, one thread at a time
        return trace_run(code, seed, variant)
