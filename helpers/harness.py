"""`debug_training_step`: one training step with evidence at every stage."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from helpers._validate import require_module
from helpers.finite import assert_finite
from helpers.gradients import (
    GradClassification,
    GradientReport,
    classify_parameter_gradients,
    gradient_report,
    optimizer_parameter_ids,
)
from helpers.parameters import ParameterChanges, parameter_changes, snapshot_parameters

__all__ = ["StepReport", "debug_training_step"]


@dataclass
class StepReport:
    """What one instrumented step saw: the loss, the gradients, their classes, what moved."""

    loss: float
    gradients: GradientReport
    classification: GradClassification
    changes: ParameterChanges

    def __repr__(self) -> str:
        return (
            f"training step: loss={self.loss:.6g}\n\n{self.gradients!r}\n\n"
            f"{self.classification!r}\n\n{self.changes!r}"
        )

    def _repr_html_(self) -> str:
        return (
            f"<p><b>training step</b>: loss={self.loss:.6g}</p>"
            + self.gradients._repr_html_()
            + self.classification._repr_html_()
            + self.changes._repr_html_()
        )


def debug_training_step(
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    inputs: torch.Tensor,
    targets: torch.Tensor,
) -> StepReport:
    """Zero grads, check inputs/outputs/loss are finite, backward, report, step, compare.

    Raises NonFiniteError naming "inputs", "outputs" or "loss" at the first non-finite one.
    """
    require_module(model)
    optimizer_parameter_ids(optimizer)  # validates the optimizer
    optimizer.zero_grad(set_to_none=True)
    assert_finite("inputs", inputs)
    outputs = model(inputs)
    assert_finite("outputs", outputs)
    loss = loss_fn(outputs, targets)
    assert_finite("loss", loss)
    before = snapshot_parameters(model)
    loss.backward()
    gradients = gradient_report(model)
    classification = classify_parameter_gradients(model, optimizer)
    optimizer.step()
    return StepReport(
        loss=float(loss.detach()),
        gradients=gradients,
        classification=classification,
        changes=parameter_changes(model, before),
    )
