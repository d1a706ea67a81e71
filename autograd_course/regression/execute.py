"""The one notebook executor of `run`, `grade` and `check`: a fresh kernel, timeouts, crash isolation.

`execute_cells` runs a notebook held in memory (grading: the learner's cells plus the grader's
export cell) with nbclient; `execute_notebook` runs a file with papermill (parameters) for `run`.
Both start kernels through `kernel_manager`, which logs the kernel's own output, registers its
process so an interrupted run can kill it, and, given a sandbox, launches it inside bubblewrap with
resource limits (see autograd_course.grading.sandbox); both use the client that cleans up after a
cell timeout, and both turn a timeout, a dead kernel or a kernel that will not start into a status.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
import papermill
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError
from papermill.clientwrap import PapermillNotebookClient
from papermill.engines import NBClientEngine, NotebookExecutionManager, papermill_engines
from papermill.exceptions import PapermillExecutionError
from papermill.log import logger
from papermill.utils import merge_kwargs, remove_args

from autograd_course.regression.report import NotebookResult

__all__ = [
    "ENGINE",
    "CellError",
    "Execution",
    "KernelRegistry",
    "NotebookJob",
    "RegressionEngine",
    "execute_cells",
    "execute_notebook",
    "kernel_manager",
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


class _CleanupOnTimeout:
    """On a cell timeout, also stop the cell's output poller (a mixin for nbclient clients).

    nbclient leaves that poller running when a cell times out (it expects the caller to carry
    on); with the kernel killed right after, asyncio would report it as destroyed while pending.
    """

    async def _async_handle_timeout(self, timeout: int, cell: Any = None) -> Any:
        current = asyncio.current_task()
        for task in asyncio.all_tasks():
            if task is not current and task.get_coro().__name__ == "_async_poll_output_msg":
                task.cancel()
        return await super()._async_handle_timeout(timeout, cell)


class _RegressionClient(_CleanupOnTimeout, PapermillNotebookClient):
    """Papermill's notebook client, cleaning up after a cell timeout."""


class _CellsClient(_CleanupOnTimeout, NotebookClient):
    """nbclient's notebook client, cleaning up after a cell timeout."""


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


class KernelRegistry:
    """The kernel processes a run has started, so an interrupted run can stop them all."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._processes: set[Any] = set()

    def __repr__(self) -> str:
        return f"KernelRegistry({len(self._processes)} live)"

    def add(self, process: Any) -> None:
        """Remember a kernel process (a Popen)."""
        with self._lock:
            self._processes.add(process)

    def kill_all(self) -> int:
        """Kill every kernel still running; their notebooks end as dead-kernel errors."""
        with self._lock:
            live = [p for p in self._processes if p.poll() is None]
        for process in live:
            process.kill()
        return len(live)


def kernel_manager(
    log_path: Path | None,
    registry: KernelRegistry | None,
    sandbox: Any = None,
    scratch: Path | None = None,
    cwd: Path | None = None,
) -> type:
    """A kernel manager class: logs the kernel's stdout/stderr, registers its process, sandboxes it.

    With a sandbox (autograd_course.grading.sandbox.Sandbox) the kernel command is wrapped in it
    and, as the sandbox has no network, the kernel talks over Unix sockets in `scratch`.
    """
    from jupyter_client.manager import AsyncKernelManager

    class RunKernelManager(AsyncKernelManager):
        def __init__(self, **kw: Any) -> None:
            super().__init__(**kw)
            if sandbox is not None and sandbox.confined and scratch is not None:
                self.transport = "ipc"
                self.ip = str(scratch / "k")
                self.connection_file = str(scratch / "kernel.json")

        async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
            if sandbox is not None and scratch is not None:
                kernel_cmd = sandbox.wrap(list(kernel_cmd), scratch, cwd or scratch)
            if log_path is None:
                await super()._async_launch_kernel(kernel_cmd, **kw)
            else:
                with open(log_path, "ab") as log:  # Popen duplicates the descriptor; closing ours is safe
                    kw.setdefault("stdout", log)
                    kw.setdefault("stderr", log)
                    await super()._async_launch_kernel(kernel_cmd, **kw)
            process = getattr(self.provisioner, "process", None)
            if registry is not None and process is not None:
                registry.add(process)

    return RunKernelManager


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
            kernel_manager_class=kernel_manager(job.kernel_log, registry),
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
    result.duration_s = round(time.perf_counter() - start, 3)
    return result


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


class _Stopped(Exception):
    """Raised from the cell-error hook to end a run early (stop_on_error said so)."""


@dataclass
class CellError:
    """An error a cell raised: the cell (0-based index), the line in it, name and message."""

    cell: int
    line: int | None
    name: str
    message: str

    def __repr__(self) -> str:
        return f"CellError(cell {self.cell}, line {self.line}: {self.name})"

    def where(self) -> str:
        """'cell 5, line 3' (1-based, as Jupyter counts)."""
        return f"cell {self.cell + 1}" + (f", line {self.line}" if self.line else "")


@dataclass
class Execution:
    """How an in-memory notebook ran: passed, failed (a cell raised), timeout or error (the kernel)."""

    status: str
    duration_s: float = 0.0
    message: str = ""
    cell_index: int | None = None
    errors: list[CellError] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"Execution({self.status} in {self.duration_s:.1f} s, {len(self.errors)} cell errors)"


_LINE = re.compile(r"line (\d+)")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _cell_errors(nb: Any) -> list[CellError]:
    found = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                text = _ANSI.sub("", "\n".join(out.get("traceback", [])))
                lines = [int(m) for m in _LINE.findall(text)]
                found.append(
                    CellError(i, lines[0] if lines else None, out.get("ename", ""), out.get("evalue", ""))
                )
    return found


def execute_cells(
    nb: Any,
    *,
    cwd: Path,
    timeout_s: float,
    kernel: str = "python3",
    env: dict[str, str] | None = None,
    sandbox: Any = None,
    scratch: Path | None = None,
    kernel_log: Path | None = None,
    start_timeout_s: float = 60,
    grace_s: float = 30,
    stop_on_error: Callable[[str, str], bool] | None = None,
) -> Execution:
    """Run every cell of nb (in place) in a fresh kernel within timeout_s in all; never raises for its faults.

    Cell errors do not stop the run (they are listed); a notebook still running after timeout_s
    is a timeout, a kernel that dies (killed by a limit, os._exit) an error. A watchdog kills the
    kernel grace_s after the deadline in case the client itself hangs.
    stop_on_error(name, message) -> True ends the run at that cell error (the rest is not run).
    """
    from nbclient.exceptions import DeadKernelError

    registry = KernelRegistry()
    deadline = time.monotonic() + timeout_s
    client = _CellsClient(
        nb,
        timeout_func=lambda _cell: max(1, int(deadline - time.monotonic())),
        startup_timeout=start_timeout_s,
        shutdown_kernel="immediate",
        allow_errors=True,
        kernel_name=kernel,
        resources={"metadata": {"path": str(cwd)}},
        kernel_manager_class=kernel_manager(kernel_log, registry, sandbox, scratch, cwd),
    )
    current: list[int] = []
    client.on_cell_start = lambda cell, cell_index: current.append(cell_index)

    def on_error(cell: Any, cell_index: int, execute_reply: dict) -> None:
        content = execute_reply.get("content", {})
        if stop_on_error is not None and stop_on_error(content.get("ename", ""), content.get("evalue", "")):
            raise _Stopped

    client.on_cell_error = on_error
    stop = threading.Event()

    def watchdog() -> None:
        if not stop.wait(max(0.0, deadline - time.monotonic()) + grace_s):
            registry.kill_all()

    threading.Thread(target=watchdog, daemon=True).start()
    start = time.perf_counter()
    result = Execution("passed")
    try:
        client.execute(env=env)
    except _Stopped:
        pass  # the cell's error is in its outputs; the status comes from it below
    except CellTimeoutError:
        result.status, result.message = "timeout", f"the notebook ran longer than {timeout_s:g} s"
    except DeadKernelError:
        result.status = "timeout" if time.monotonic() > deadline else "error"
        result.message = (
            f"the notebook ran longer than {timeout_s:g} s"
            if result.status == "timeout"
            else "the kernel died (killed by a memory, CPU-time or process limit, or it exited)"
        )
    except Exception as exc:  # a kernel that will not start, a broken client: recorded, never raised
        result.status = "error"
        result.message = (
            f"the notebook could not be run: {type(exc).__name__}: {' '.join(str(exc).split())[:160]}"
        )
    finally:
        stop.set()
        registry.kill_all()
        if sandbox is not None and scratch is not None:
            from autograd_course.grading.sandbox import release_cgroup

            release_cgroup(scratch)
    result.duration_s = round(time.perf_counter() - start, 3)
    result.errors = _cell_errors(nb)
    if result.status != "passed":
        result.cell_index = current[-1] if current else None
    elif result.errors:
        result.status, result.cell_index = "failed", result.errors[0].cell
    return result
