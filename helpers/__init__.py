"""The Autograd Debugging toolkit: reports, finite checks, hooks, graphs, and the doctor.

Import what you need by name: `from helpers import gradient_report, expect_error`.
`helpers` exports what the lessons use; everything else is importable from its module
(`helpers.gradients.GradientRow`, `helpers.doctor.checklist.CHECKLIST`, ...).
Read it top to bottom: status.py (the vocabularies), graph.py, lineage.py, tensors.py, finite.py,
gradients.py, parameters.py, hooks.py, harness.py; the doctor (diagnose, watch_non_finite)
lives in helpers/doctor/.
"""

from helpers.doctor import Diagnosis, diagnose, watch_non_finite
from helpers.errors import ExpectedError, expect_error
from helpers.finite import NonFiniteError, assert_finite
from helpers.gradcheck import check_gradient
from helpers.gradients import (
    GradientReport,
    classify_parameter_gradients,
    grad_norm,
    gradient_report,
)
from helpers.graph import AutogradGraph, autograd_graph
from helpers.harness import StepReport, debug_training_step
from helpers.hooks import watch_gradients
from helpers.parameters import (
    ParameterChanges,
    ParameterReport,
    parameter_changes,
    parameter_report,
    snapshot_parameters,
)
from helpers.status import GradStatus, Stage
from helpers.syncs import count_host_syncs
from helpers.tensors import TensorInfo, debug_tensor
from helpers.tinynet import TinyNet, make_tiny_problem

__all__ = [
    "AutogradGraph",
    "Diagnosis",
    "ExpectedError",
    "GradStatus",
    "GradientReport",
    "NonFiniteError",
    "ParameterChanges",
    "ParameterReport",
    "Stage",
    "StepReport",
    "TensorInfo",
    "TinyNet",
    "assert_finite",
    "autograd_graph",
    "check_gradient",
    "classify_parameter_gradients",
    "count_host_syncs",
    "debug_tensor",
    "debug_training_step",
    "diagnose",
    "expect_error",
    "grad_norm",
    "gradient_report",
    "make_tiny_problem",
    "parameter_changes",
    "parameter_report",
    "snapshot_parameters",
    "watch_gradients",
    "watch_non_finite",
]
