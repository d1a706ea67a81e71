"""Trusted reference runs of the broken setups, computed in the checking process (proving/trace.py)."""

from __future__ import annotations

from functools import lru_cache

from autograd_course.challenge.catalogue import build_broken
from autograd_course.challenge.variants import Variant
from autograd_course.proving.trace import (
    REFERENCE_STEPS,
    BrokenTrace,
    StepRecord,
    close,
    tensor_stats,
    trace_run,
)

__all__ = ["REFERENCE_STEPS", "BrokenTrace", "StepRecord", "close", "tensor_stats", "trace_broken"]


@lru_cache(maxsize=32)
def trace_broken(variant: Variant, seed: int) -> BrokenTrace:
    """Run one variant's broken setup on CPU and record its first steps (cached)."""
    return trace_run(build_broken(variant), seed, variant)
