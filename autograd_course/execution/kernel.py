"""The one kernel executor of `grade`, `check` and `run`: a fresh kernel, timeouts, crash isolation.

`execute_cells` runs a notebook held in memory (grading: the learner's cells plus the grader's
export cell) with nbclient. `kernel_manager` starts every kernel, also the ones `run` starts through
papermill (autograd_instructor.regression.execute): it logs the kernel's own output, registers its
process so an interrupted run can kill it, and, given a sandbox, launches it inside bubblewrap with
resource limits (autograd_course.execution.sandbox). Imports neither papermill nor nbval: the
learner's `check` runs on the core install.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty
from typing import Any

from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError

from autograd_course.execution.sandbox import Sandbox, release_cgroup

__all__ = [
    "CellError",
    "CleanupOnTimeout",
    "Execution",
    "KernelRegistry",
    "KernelSpec",
    "execute_cells",
    "kernel_manager",
    "poll_in_slices",
]


class CleanupOnTimeout:
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

    async def async_start_new_kernel_client(self) -> Any:
        kc = await super().async_start_new_kernel_client()
        poll_in_slices(kc.shell_channel)
        return kc


POLL_SLICE_S = 1.0


def poll_in_slices(channel: Any) -> None:
    """Make the channel wait for replies in POLL_SLICE_S slices, not one wait as long as a cell timeout.

    nbclient waits for a cell's execute_reply with one poll as long as the cell timeout (300 s). A
    wake-up of that poll that is missed (the zmq socket's edge-triggered descriptor, read by several
    event loops in the worker threads of a parallel run) leaves the reply unread until the poll
    times out: a cell the kernel finished in milliseconds then "takes" the whole timeout. Each new
    slice checks the socket again, so a missed wake-up costs at most a slice.
    """
    original = channel.get_msg

    async def get_msg(timeout: float | None = None, **kw: Any) -> Any:
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            left = POLL_SLICE_S if end is None else max(0.0, min(POLL_SLICE_S, end - time.monotonic()))
            try:
                reply = original(timeout=left, **kw)
                return await reply if inspect.isawaitable(reply) else reply
            except Empty:
                if end is not None and time.monotonic() >= end:
                    raise

    channel.get_msg = get_msg


class _CellsClient(CleanupOnTimeout, NotebookClient):
    """nbclient's notebook client, cleaning up after a cell timeout."""


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


@dataclass
class KernelSpec:
    """Where and how one kernel runs: its name, environment, folder, log, and sandbox (if any).

    With a sandbox, `scratch` is the one folder the kernel may write; the kernel command is wrapped
    in the sandbox and, as it has no network, talks over Unix sockets in that folder.
    """

    cwd: Path | None = None
    name: str = "python3"
    env: dict[str, str] | None = None
    log: Path | None = None
    sandbox: Sandbox | None = None
    scratch: Path | None = None
    start_timeout_s: float = 60

    def __repr__(self) -> str:
        return f"KernelSpec({self.name} in {self.cwd}, {self.sandbox or 'no sandbox'})"

    @property
    def confined(self) -> bool:
        """True when the kernel runs inside bubblewrap (and so talks over Unix sockets)."""
        return self.sandbox is not None and self.sandbox.confined and self.scratch is not None

    def command(self, argv: list[str]) -> list[str]:
        """The kernel command, wrapped in the sandbox and its limits when there is one."""
        if self.sandbox is None or self.scratch is None:
            return argv
        return self.sandbox.wrap(list(argv), self.scratch, self.cwd or self.scratch)

    def release(self) -> None:
        """Free what the sandbox held for this kernel (its pids cgroup)."""
        if self.sandbox is not None and self.scratch is not None:
            release_cgroup(self.scratch)


def kernel_manager(spec: KernelSpec, registry: KernelRegistry | None) -> type:
    """A kernel manager class: logs the kernel's stdout/stderr, registers its process, sandboxes it."""

    class RunKernelManager(AsyncKernelManager):
        def __init__(self, **kw: Any) -> None:
            super().__init__(**kw)
            if spec.confined:
                self.transport = "ipc"
                self.ip = str(spec.scratch / "k")
                self.connection_file = str(spec.scratch / "kernel.json")

        async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
            kernel_cmd = spec.command(kernel_cmd)
            if spec.log is None:
                await super()._async_launch_kernel(kernel_cmd, **kw)
            else:
                with open(spec.log, "ab") as log:  # Popen duplicates the descriptor; closing ours is safe
                    kw.setdefault("stdout", log)
                    kw.setdefault("stderr", log)
                    await super()._async_launch_kernel(kernel_cmd, **kw)
            process = getattr(self.provisioner, "process", None)
            if registry is not None and process is not None:
                registry.add(process)

    return RunKernelManager


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


def _client(nb: Any, spec: KernelSpec, deadline: float, registry: KernelRegistry) -> _CellsClient:
    return _CellsClient(
        nb,
        timeout_func=lambda _cell: max(1, int(deadline - time.monotonic())),
        startup_timeout=spec.start_timeout_s,
        shutdown_kernel="immediate",
        allow_errors=True,
        kernel_name=spec.name,
        resources={"metadata": {"path": str(spec.cwd)}},
        kernel_manager_class=kernel_manager(spec, registry),
    )


def _failure(exc: BaseException, timeout_s: float, late: bool) -> tuple[str, str]:
    """(status, message) for what ended a run early."""
    if isinstance(exc, CellTimeoutError) or (isinstance(exc, DeadKernelError) and late):
        return "timeout", f"the notebook ran longer than {timeout_s:g} s"
    if isinstance(exc, DeadKernelError):
        return "error", "the kernel died (killed by a memory, CPU-time or process limit, or it exited)"
    what = " ".join(str(exc).split())[:160]
    return "error", f"the notebook could not be run: {type(exc).__name__}: {what}"


def _watchdog(registry: KernelRegistry, deadline: float, grace_s: float) -> threading.Event:
    """Kill the kernel grace_s after the deadline unless the returned event is set first."""
    stop = threading.Event()

    def watch() -> None:
        if not stop.wait(max(0.0, deadline - time.monotonic()) + grace_s):
            registry.kill_all()

    threading.Thread(target=watch, daemon=True).start()
    return stop


def execute_cells(
    nb: Any,
    spec: KernelSpec,
    timeout_s: float,
    *,
    grace_s: float = 30,
    stop_on_error: Callable[[str, str], bool] | None = None,
) -> Execution:
    """Run every cell of nb (in place) in a fresh kernel within timeout_s in all; never raises for its faults.

    Cell errors do not stop the run (they are listed); a notebook still running after timeout_s
    is a timeout, a kernel that dies (killed by a limit, os._exit) an error. A watchdog kills the
    kernel grace_s after the deadline in case the client itself hangs.
    stop_on_error(name, message) -> True ends the run at that cell error (the rest is not run).
    """
    registry = KernelRegistry()
    deadline = time.monotonic() + timeout_s
    client = _client(nb, spec, deadline, registry)
    current: list[int] = []
    client.on_cell_start = lambda cell, cell_index: current.append(cell_index)

    def on_error(cell: Any, cell_index: int, execute_reply: dict) -> None:
        content = execute_reply.get("content", {})
        if stop_on_error is not None and stop_on_error(content.get("ename", ""), content.get("evalue", "")):
            raise _Stopped

    client.on_cell_error = on_error
    stop = _watchdog(registry, deadline, grace_s)
    start = time.perf_counter()
    result = Execution("passed")
    try:
        client.execute(env=spec.env)
    except _Stopped:
        pass  # the cell's error is in its outputs; the status comes from it below
    except Exception as exc:  # a timeout, a dead kernel, one that will not start: recorded, never raised
        result.status, result.message = _failure(exc, timeout_s, time.monotonic() > deadline)
    finally:
        stop.set()
        registry.kill_all()
        spec.release()
    result.duration_s = round(time.perf_counter() - start, 3)
    result.errors = _cell_errors(nb)
    if result.status != "passed":
        result.cell_index = current[-1] if current else None
    elif result.errors:
        result.status, result.cell_index = "failed", result.errors[0].cell
    return result
