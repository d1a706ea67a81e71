"""Regression runs of the course with papermill: run every notebook, report, compare two runs."""

from autograd_course.regression.compare import (
    CellChange,
    NotebookDrift,
    RunComparison,
    cell_text_outputs,
    compare_runs,
)
from autograd_course.regression.execute import KernelRegistry, NotebookJob, execute_notebook
from autograd_course.regression.params import (
    DeclaredParameter,
    ParameterError,
    declared_parameters,
    type_parameters,
)
from autograd_course.regression.report import STATUSES, NotebookResult, RunReport, load_report
from autograd_course.regression.runner import (
    RunError,
    collect_notebooks,
    default_output,
    kernel_environment,
    plan_jobs,
    progress_wanted,
    run_notebooks,
)
from autograd_course.regression.sanitize import Sanitizer, default_sanitize_config

__all__ = [
    "STATUSES",
    "CellChange",
    "DeclaredParameter",
    "KernelRegistry",
    "NotebookDrift",
    "NotebookJob",
    "NotebookResult",
    "ParameterError",
    "RunComparison",
    "RunError",
    "RunReport",
    "Sanitizer",
    "cell_text_outputs",
    "collect_notebooks",
    "compare_runs",
    "declared_parameters",
    "default_output",
    "default_sanitize_config",
    "execute_notebook",
    "kernel_environment",
    "load_report",
    "plan_jobs",
    "progress_wanted",
    "run_notebooks",
    "type_parameters",
]
