"""Regression runs of the course with papermill: run every notebook, report, compare two runs."""

from autograd_course.execution.kernel import KernelRegistry
from autograd_instructor.regression.compare import (
    CELL_NUMBERING,
    CHANGE_KINDS,
    CellChange,
    NotebookDrift,
    RunComparison,
    cell_text_outputs,
    compare_runs,
    parse_change_kinds,
)
from autograd_instructor.regression.durations import DurationCheck, check_durations
from autograd_instructor.regression.environment import course_version, probe_interpreter
from autograd_instructor.regression.execute import NotebookJob, execute_notebook
from autograd_instructor.regression.params import (
    DeclaredParameter,
    ParameterError,
    declared_parameters,
    type_parameters,
)
from autograd_instructor.regression.report import (
    RUN_STATUSES,
    SHARED_MACHINE_NOTE,
    NotebookResult,
    RunReport,
    environment_line,
    load_report,
)
from autograd_instructor.regression.runner import (
    RunError,
    code_cell_number,
    collect_notebooks,
    default_output,
    kernel_environment,
    plan_jobs,
    progress_wanted,
    run_notebooks,
)
from autograd_instructor.regression.sanitize import Sanitizer, default_sanitize_config

__all__ = [
    "CELL_NUMBERING",
    "CHANGE_KINDS",
    "RUN_STATUSES",
    "SHARED_MACHINE_NOTE",
    "CellChange",
    "DeclaredParameter",
    "DurationCheck",
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
    "check_durations",
    "code_cell_number",
    "collect_notebooks",
    "compare_runs",
    "course_version",
    "declared_parameters",
    "default_output",
    "default_sanitize_config",
    "environment_line",
    "execute_notebook",
    "kernel_environment",
    "load_report",
    "parse_change_kinds",
    "plan_jobs",
    "probe_interpreter",
    "progress_wanted",
    "run_notebooks",
    "type_parameters",
]
