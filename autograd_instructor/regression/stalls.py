"""Stalls: a cell whose wall time (the client's clock) far exceeds the kernel's own execution time.

The kernel reports when it went busy and idle for each request (IOPub status, recorded by nbclient
in the cell's `execution` metadata); papermill records the wall time it waited (`papermill.duration`).
A cell that the kernel finished in 10 ms but the client waited 300 s for did not "pass": the run
waited on something else (a reply the client never noticed, a lost message). It is reported as a
stall, never as a pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = ["STALL_MIN_EXCESS_S", "STALL_RATIO", "Stall", "find_stalls"]

STALL_MIN_EXCESS_S = 30.0  # waited this much longer than the kernel ran, at least ...
STALL_RATIO = 10.0  # ... and this many times as long


@dataclass(frozen=True)
class Stall:
    """One stalled cell: its index among all cells, the wall time waited and the kernel's own time."""

    cell_index: int
    wall_s: float
    kernel_s: float

    def __repr__(self) -> str:
        return f"Stall(cell {self.cell_index}: {self.wall_s:.1f} s waited, kernel {self.kernel_s:.3f} s)"

    def message(self) -> str:
        """What the run report says about it."""
        return (
            f"the cell waited {self.wall_s:.1f} s while its kernel ran {self.kernel_s:.2f} s "
            "(a stall: the client waited for something other than the kernel)"
        )


def _time(text: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None


def _kernel_seconds(cell: Any) -> float | None:
    timing = cell.get("metadata", {}).get("execution", {})
    busy, idle = _time(timing.get("iopub.status.busy")), _time(timing.get("iopub.status.idle"))
    if busy is None or idle is None:
        return None
    return max(0.0, (idle - busy).total_seconds())


def find_stalls(nb: Any) -> list[Stall]:
    """Every code cell of an executed notebook whose wall time far exceeds the kernel's time."""
    found = []
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        wall = cell.get("metadata", {}).get("papermill", {}).get("duration")
        kernel = _kernel_seconds(cell)
        if not isinstance(wall, (int, float)) or kernel is None:
            continue
        if wall - kernel >= STALL_MIN_EXCESS_S and wall >= STALL_RATIO * max(kernel, 1e-3):
            found.append(Stall(i, float(wall), kernel))
    return found
