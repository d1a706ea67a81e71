"""A stall (a cell's wall time far beyond its kernel's own execution time) is reported, never passed."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from queue import Empty

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook
from test_run_drift import lesson, make_run

from autograd_course.cli import main
from autograd_course.execution import kernel
from autograd_instructor.regression.execute import _record_stall
from autograd_instructor.regression.report import NotebookResult
from autograd_instructor.regression.stalls import find_stalls


def _timed(wall_s: float, kernel_s: float) -> nbformat.NotebookNode:
    """A code cell as papermill and nbclient record it: wall time, and the kernel's busy/idle times."""
    cell = new_code_cell("show(widget)")
    idle = f"2026-12-03T10:00:{kernel_s:06.3f}Z" if kernel_s < 60 else "2026-12-03T10:02:00.000Z"
    cell.metadata["execution"] = {"iopub.status.busy": "2026-12-03T10:00:00.000Z", "iopub.status.idle": idle}
    cell.metadata["papermill"] = {"duration": wall_s}
    return cell


def test_a_cell_waited_on_far_longer_than_its_kernel_ran_is_a_stall():
    nb = new_notebook(cells=[_timed(2.0, 1.9), _timed(300.0, 0.010), _timed(121.0, 120.0)])
    stalls = find_stalls(nb)
    assert [(s.cell_index, s.wall_s) for s in stalls] == [(1, 300.0)]
    assert abs(stalls[0].kernel_s - 0.010) < 1e-6 and "waited 300.0 s" in stalls[0].message()


def test_a_planted_stall_makes_the_notebook_a_stall_not_a_pass(tmp_path):
    executed = tmp_path / "05_grad_modes.ipynb"
    nbformat.write(new_notebook(cells=[_timed(1.0, 0.9), _timed(300.0, 0.010)]), executed)
    result = NotebookResult("notebooks/05_grad_modes.ipynb", "passed", 304.7)
    _record_stall(result, executed, source_had_injected=True)
    assert (result.status, result.cell_index, result.error_name) == ("stall", 1, "Stall")
    assert not result.passed


def test_compare_fails_on_stall_naming_the_notebook(tmp_path, capsys):
    names = ["00_lesson.ipynb", "05_grad_modes.ipynb"]
    a = make_run(tmp_path / "a", {n: lesson({}) for n in names})
    b = make_run(tmp_path / "b", {n: lesson({}) for n in names}, statuses={names[1]: ("stall", 2)})
    assert main(["run", "--compare", str(a), str(b), "--fail-on", "stall"]) == 1
    err = capsys.readouterr().err
    assert "stall" in err and "notebooks/05_grad_modes.ipynb" in err
    assert main(["run", "--compare", str(a), str(a), "--fail-on", "stall"]) == 0


class _MissedWakeup:
    """A shell channel whose first poll misses the reply that is already there (a lost wake-up)."""

    def __init__(self) -> None:
        self.polls: list[float] = []

    async def get_msg(self, timeout=None):
        self.polls.append(timeout)
        if len(self.polls) == 1:
            await asyncio.sleep(timeout)  # the reply sits unread until this poll times out
            raise Empty
        return {"msg_type": "execute_reply"}


def _run(coroutine):
    """asyncio.run on a thread of its own: a browser test's Playwright loop may be running on this one."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_a_missed_wakeup_costs_one_poll_slice_not_the_cell_timeout(monkeypatch):
    monkeypatch.setattr(kernel, "POLL_SLICE_S", 0.05)
    channel = _MissedWakeup()
    kernel.poll_in_slices(channel)
    start = time.monotonic()
    reply = _run(channel.get_msg(timeout=300))
    assert reply["msg_type"] == "execute_reply" and time.monotonic() - start < 5
    assert channel.polls == [0.05, 0.05]


def test_sliced_polls_still_end_at_the_timeout(monkeypatch):
    monkeypatch.setattr(kernel, "POLL_SLICE_S", 0.05)

    class Silent:
        async def get_msg(self, timeout=None):
            await asyncio.sleep(timeout)
            raise Empty

    channel = Silent()
    kernel.poll_in_slices(channel)
    with pytest.raises(Empty):
        _run(channel.get_msg(timeout=0.2))
