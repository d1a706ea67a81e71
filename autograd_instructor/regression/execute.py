"""`run`'s notebook execution: papermill (parameters) over the one kernel executor's kernels.

`execute_notebook` runs a file with papermill, starting its kernel through
autograd_course.execution's `kernel_manager` (kernel log, registry for an interrupted run), with
the client that cleans up after a cell timeout; a timeout, a dead kernel or a kernel that will not
start becomes a status.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
import papermill
from nbclient.exceptions import CellTimeoutError
from papermill.clientwrap import PapermillNotebookClient
from papermill.engines import NBClientEngine, NotebookExecutionManager, papermill_engines
from papermill.exceptions import PapermillExecutionError
from papermill.log import logger
from papermill.utils import merge_kwargs, remove_args

from autograd_course.execution.kernel import CleanupOnTimeout, KernelRegistry, KernelSpec, kernel_manager
from autograd_instructor.regression.report import NotebookResult
from autograd_instructor.regression.stalls import find_stalls

__all__ = [
    "ENGINE",
    "NotebookJob",
    "RegressionEngine",
    "execute_notebook",
]

ENGINE = "autograd-course"
_INJECTED = "injected-parameters"
_ERROR_MARKER = "papermill-error-cell-tag"


@dataclass
class NotebookJob:
    """One notebook to run: where it is, where its executed copy goes, and with what."""

    source: Path
    output: Path
    label: str
    kernel_log: Path | None = None
    parameters: dict[str, Any] = field(default_factory=dict)
    undeclared: list[str] = field(default_factory=list)
    defaults: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"NotebookJob({self.label} -> {self.output})"


class _SaveAtEndManager(NotebookExecutionManager):
    """Papermill's execution manager, writing the notebook when it ends (or every 30 s), not per cell.

    Papermill rewrites the whole notebook (serialise and validate) before and after every cell;
    for a 40-cell notebook that is 80 writes of which only the last is read.
    """

    _allow_save = False

    def save(self, **kwargs: Any) -> None:
        if self._allow_save:
            super().save(**kwargs)

    def autosave_cell(self) -> None:
        self._allow_save = True
        try:
            super().autosave_cell()
        finally:
            self._allow_save = False

    def notebook_complete(self, **kwargs: Any) -> None:
        self._allow_save = True  # runs in a finally: a failed, timed-out or dead notebook is written too
        super().notebook_complete(**kwargs)


class _RegressionClient(CleanupOnTimeout, PapermillNotebookClient):
    """Papermill's notebook client, cleaning up after a cell timeout."""


class RegressionEngine(NBClientEngine):
    """Papermill's nbclient engine with the save-at-end execution manager."""

    @classmethod
    def execute_managed_notebook(
        cls,
        nb_man: NotebookExecutionManager,
        kernel_name: str,
        log_output: bool = False,
        stdout_file: Any = None,
        stderr_file: Any = None,
        start_timeout: float = 60,
        execution_timeout: float | None = None,
        **kwargs: Any,
    ) -> Any:
        """As papermill's NBClientEngine does, with the client that cleans up after a timeout."""
        timeout = execution_timeout or kwargs.get("timeout")
        kwargs = remove_args(["input_path", "timeout", "startup_timeout"], **kwargs)
        options = merge_kwargs(
            kwargs,
            timeout=timeout,
            startup_timeout=start_timeout,
            kernel_name=kernel_name,
            log=logger,
            log_output=log_output,
            stdout_file=stdout_file,
            stderr_file=stderr_file,
        )
        return _RegressionClient(nb_man, **options).execute()

    @classmethod
    def execute_notebook(
        cls,
        nb: Any,
        kernel_name: str,
        output_path: str | None = None,
        progress_bar: bool = True,
        log_output: bool = False,
        autosave_cell_every: int = 30,
        **kwargs: Any,
    ) -> Any:
        nb_man = _SaveAtEndManager(
            nb,
            output_path=output_path,
            progress_bar=progress_bar,
            log_output=log_output,
            autosave_cell_every=autosave_cell_every,
        )
        nb_man.notebook_start()
        try:
            cls.execute_managed_notebook(nb_man, kernel_name, log_output=log_output, **kwargs)
        finally:
            nb_man.cleanup_pbar()
            nb_man.notebook_complete()
        return nb_man.nb


papermill_engines.register(ENGINE, RegressionEngine)


def _tags(cell: Any) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def _source_index(executed: Any, index: int, source_had_injected: bool) -> int:
    """Map a cell index of the executed notebook to the source notebook (papermill adds a cell)."""
    if source_had_injected:
        return index
    for k, cell in enumerate(executed.cells):
        if _INJECTED in _tags(cell):
            return index - 1 if index > k else index
    return index


def _last_started_cell(executed: Any) -> int | None:
    """The index of the last cell papermill started: where a timeout or a dead kernel struck."""
    started = [
        i
        for i, cell in enumerate(executed.cells)
        if cell.get("metadata", {}).get("papermill", {}).get("start_time")
    ]
    return started[-1] if started else None


def _read(path: Path) -> Any | None:
    """The executed notebook as papermill saved it, without the error banners papermill adds."""
    try:
        nb = nbformat.read(path, as_version=4)
    except (OSError, ValueError):
        return None
    nb.cells = [c for c in nb.cells if _ERROR_MARKER not in _tags(c)]
    return nb


def execute_notebook(
    job: NotebookJob,
    kernel: str,
    timeout_s: float,
    start_timeout_s: float = 60,
    registry: KernelRegistry | None = None,
) -> NotebookResult:
    """Run the job's notebook in a fresh kernel with its folder as cwd; never raises for notebook faults."""
    source_nb = nbformat.read(job.source, as_version=4)
    source_had_injected = any(_INJECTED in _tags(c) for c in source_nb.cells)
    job.output.parent.mkdir(parents=True, exist_ok=True)
    if job.kernel_log is not None:
        job.kernel_log.parent.mkdir(parents=True, exist_ok=True)
    result = NotebookResult(
        path=job.label,
        status="passed",
        duration_s=0.0,
        output=str(job.output),
        kernel_log=str(job.kernel_log) if job.kernel_log else None,
        parameters=dict(job.parameters),
        undeclared_parameters=list(job.undeclared),
    )
    start = time.perf_counter()
    try:
        papermill.execute_notebook(
            str(job.source),
            str(job.output),
            parameters=job.parameters or None,
            kernel_name=kernel,
            engine_name=ENGINE,
            progress_bar=False,
            log_output=False,
            start_timeout=start_timeout_s,
            execution_timeout=timeout_s,
            # The kernel's cwd, set per kernel: papermill's own `cwd=` chdirs the whole process,
            # which parallel threads would race on.
            resources={"metadata": {"path": str(job.source.parent)}},
            kernel_manager_class=kernel_manager(KernelSpec(log=job.kernel_log), registry),
            # Stop the throwaway kernel with a kill once its outputs are in: a graceful shutdown
            # of a kernel that imported torch waits ~2.7 s for it to exit, per notebook.
            shutdown_kernel="immediate",
        )
    except PapermillExecutionError as exc:
        result.status = "failed"
        executed = _read(job.output)
        index = exc.cell_index
        result.cell_index = _source_index(executed, index, source_had_injected) if executed else index
        result.error_name = exc.ename
        result.error_message = str(exc.evalue)
    except CellTimeoutError as exc:
        _record_abort(result, "timeout", exc, job.output, source_had_injected)
    except Exception as exc:  # a dead kernel, one that will not start, an unreadable notebook: recorded
        _record_abort(result, "error", exc, job.output, source_had_injected)
    else:
        _record_stall(result, job.output, source_had_injected)
    result.duration_s = round(time.perf_counter() - start, 3)
    return result


def _record_stall(result: NotebookResult, output: Path, source_had_injected: bool) -> None:
    """A notebook whose cells all ran but one stalled (see stalls.py) ends as `stall`, not `passed`."""
    executed = _read(output)
    stalls = find_stalls(executed) if executed is not None else []
    if stalls:
        result.status = "stall"
        result.cell_index = _source_index(executed, stalls[0].cell_index, source_had_injected)
        result.error_name = "Stall"
        result.error_message = stalls[0].message()


def _record_abort(
    result: NotebookResult, status: str, exc: BaseException, output: Path, source_had_injected: bool
) -> None:
    result.status = status
    result.error_name = type(exc).__name__
    result.error_message = " ".join(str(exc).split()) or type(exc).__name__
    executed = _read(output)
    if executed is not None:
        index = _last_started_cell(executed)
        if index is not None:
            result.cell_index = _source_index(executed, index, source_had_injected)
