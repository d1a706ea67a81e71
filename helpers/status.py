"""The vocabularies of the course: per-parameter gradient status and checklist stages."""

from __future__ import annotations

from enum import Enum

__all__ = ["GradStatus", "Stage"]


class GradStatus(Enum):
    """What one parameter's gradient says, decided in this order."""

    FROZEN = "requires_grad is False"
    UNREGISTERED = "requires grad but the model does not register it (a plain list, dict or attribute)"
    NO_GRAD = ".grad is None: the parameter took no part in backward"
    NON_FINITE_GRAD = ".grad holds NaN or Inf"
    NOT_IN_OPTIMIZER = "has a gradient but the optimizer does not hold it"
    ZERO_GRAD = "every element of .grad is exactly zero"
    OK = "finite, non-zero gradient, and optimized"

    def __repr__(self) -> str:
        return f"GradStatus.{self.name}"


class Stage(Enum):
    """The stages of the debugging checklist, in the order they are checked."""

    GRAD_MODE_DISABLED = "grad mode is off (no_grad or inference_mode around the step)"
    FORWARD_NON_FINITE = "the forward pass or the loss holds NaN or Inf"
    LOSS_NOT_IN_GRAPH = "the loss is not connected to any trainable parameter"
    PARAMS_FROZEN = "the parameters that should train do not require grad"
    BACKWARD_FAILED = "the step raised an error (in-place change, freed graph, non-tensor loss, ...)"
    GRAD_MISSING = "some trainable parameters receive no gradient"
    GRAD_NON_FINITE = "some gradients hold NaN or Inf"
    GRAD_MAGNITUDE = "gradients are exploding or vanishing"
    PARAMS_UNREGISTERED = "trainable tensors the model holds but does not register (plain list or dict)"
    NOT_IN_OPTIMIZER = "some parameters with gradients are not in the optimizer"
    GRADS_ACCUMULATING = "gradients from the previous step are still there"
    PARAMS_NOT_UPDATED = "optimizer.step() did not change the parameters"
    OK = "the training step works"

    def __repr__(self) -> str:
        return f"Stage.{self.name}"
