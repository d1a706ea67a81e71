"""The Autograd Debugging toolkit: reports, classification, finite checks, hooks, graphs.

Import what you need by name: `from helpers import gradient_report, expect_error`.
"""

from helpers.checklist import CHECKLIST, Check
from helpers.doctor import Diagnosis, diagnose
from helpers.errors import ExpectedError, expect_error
from helpers.finite import NonFiniteError, assert_finite
from helpers.gradcheck import GradientCheck, check_gradient
from helpers.gradients import (
    GradClassification,
    GradientReport,
    GradientRow,
    classify_parameter_gradients,
    grad_norm,
    gradient_report,
)
from helpers.graph import AutogradGraph, GraphNode, autograd_graph
from helpers.harness import StepReport, debug_training_step
from helpers.hooks import GradientAlert, GradientWatch, watch_gradients
from helpers.nonfinite import NonFiniteEvent, NonFiniteWatch, watch_non_finite
from helpers.parameters import (
    ParameterChange,
    ParameterChanges,
    ParameterReport,
    ParameterRow,
    ParameterSnapshot,
    parameter_changes,
    parameter_report,
    snapshot_parameters,
)
from helpers.status import GradStatus, Stage
from helpers.syncs import HostSyncCounter, count_host_syncs
from helpers.tensors import TensorInfo, debug_tensor
from helpers.tinynet import TinyNet, make_tiny_problem

__all__ = [
    "CHECKLIST",
    "AutogradGraph",
    "Check",
    "Diagnosis",
    "ExpectedError",
    "GradClassification",
    "GradStatus",
    "GradientAlert",
    "GradientCheck",
    "GradientReport",
    "GradientRow",
    "GradientWatch",
    "GraphNode",
    "HostSyncCounter",
    "NonFiniteError",
    "NonFiniteEvent",
    "NonFiniteWatch",
    "ParameterChange",
    "ParameterChanges",
    "ParameterReport",
    "ParameterRow",
    "ParameterSnapshot",
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
