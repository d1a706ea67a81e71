"""Correct training loops of the kinds people run, each checked to train: the toolkit must stay quiet
on every one, and must not change what its step computes."""

from healthy import common, conditional, fixed, generative, memory, optimizers, precision, rl, schedules
from healthy.loop import Healthy, Loop

LOOPS: tuple[Healthy, ...] = (
    *common.LOOPS,
    *generative.LOOPS,
    *rl.LOOPS,
    *schedules.LOOPS,
    *optimizers.LOOPS,
    *conditional.LOOPS,
    *precision.LOOPS,
    *memory.LOOPS,
    *fixed.LOOPS,
)

__all__ = ["LOOPS", "Healthy", "Loop"]
