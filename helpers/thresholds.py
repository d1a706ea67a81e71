"""When a gradient is too small or too large to be healthy: one definition for the toolkit and the course."""

__all__ = ["EXPLODING", "VANISHING"]

VANISHING = 1e-12  # every |grad| at or below this: the gradient vanished
EXPLODING = 1e3  # a |grad| above this (a total norm: this times max(1, |loss|)): the gradient exploded
