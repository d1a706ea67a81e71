"""What a run found: one result per notebook, and the run's report as JSON and Markdown."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "ENVIRONMENT_LABELS",
    "RUN_STATUSES",
    "SHARED_MACHINE_NOTE",
    "NotebookResult",
    "RunReport",
    "environment_line",
    "load_report",
]

# A notebook's status in a run (stall: regression/stalls.py); grading's part statuses are another list.
RUN_STATUSES = ("passed", "failed", "timeout", "error", "stall")
REPORT_VERSION = 2
_READABLE_VERSIONS = (1, 2)  # version 1 had no environment record and no code-cell numbers
SHARED_MACHINE_NOTE = (
    "Durations are wall-clock seconds on a machine that may be shared (CI runners, laptops), not benchmarks."
)


@dataclass
class NotebookResult:
    """How one notebook ran: status, duration and, when it did not pass, where and why."""

    path: str
    status: str
    duration_s: float
    output: str = ""
    kernel_log: str | None = None
    parameters: dict[str, Any] = field(default_factory=dict)
    undeclared_parameters: list[str] = field(default_factory=list)
    cell_index: int | None = None
    code_cell: int | None = None
    error_name: str | None = None
    error_message: str | None = None

    def __post_init__(self) -> None:
        if self.status not in RUN_STATUSES:
            raise ValueError(f"status must be one of {', '.join(RUN_STATUSES)}; got {self.status!r}")

    def __repr__(self) -> str:
        where = f", code cell {self.code_cell}: {self.error_name}" if self.status != "passed" else ""
        return f"NotebookResult({self.path} {self.status} in {self.duration_s:.1f} s{where})"

    @property
    def passed(self) -> bool:
        """True when every cell ran without an error."""
        return self.status == "passed"


@dataclass
class RunReport:
    """A whole run: the environment it ran in and one result per notebook, in course order."""

    parameters: dict[str, str]
    device: str | None
    torch_version: str | None
    python_version: str | None
    kernel: str
    timeout_s: float
    jobs: int
    started: str
    duration_s: float = 0.0
    results: list[NotebookResult] = field(default_factory=list)
    environment: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        counts = ", ".join(f"{n} {s}" for s, n in self.counts().items() if n)
        return f"RunReport({len(self.results)} notebooks: {counts or 'none'}, {self.duration_s:.1f} s)"

    @property
    def passed(self) -> bool:
        """True when every notebook passed (and there was at least one)."""
        return bool(self.results) and all(r.passed for r in self.results)

    def counts(self) -> dict[str, int]:
        """How many notebooks ended in each status."""
        return {s: sum(r.status == s for r in self.results) for s in RUN_STATUSES}

    def result(self, path: str) -> NotebookResult:
        """The result for one notebook path as recorded in the report."""
        for r in self.results:
            if r.path == path:
                return r
        raise KeyError(f"no notebook {path!r} in this run; it has: {', '.join(r.path for r in self.results)}")

    def to_json(self) -> str:
        """The report as JSON (what report.json holds)."""
        data = {"report_version": REPORT_VERSION, **asdict(self)}
        data["counts"] = self.counts()
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

    def to_markdown(self) -> str:
        """The report as a Markdown table (what report.md holds)."""
        params = ", ".join(f"`{k}={v}`" for k, v in self.parameters.items()) or "none (notebook defaults)"
        counts = ", ".join(f"{n} {s}" for s, n in self.counts().items() if n) or "no notebooks"
        lines = [
            "# Regression run",
            "",
            f"- started: {self.started}, took {self.duration_s:.1f} s with {self.jobs} job(s)",
            f"- parameters: {params}",
            f"- device: {self.device or 'notebook default'}; torch {self.torch_version or 'not installed'}; "
            f"Python {self.python_version or 'unknown'}; kernel `{self.kernel}`; "
            f"cell timeout {self.timeout_s:g} s",
            f"- result: {counts}",
            f"- environment: {environment_line(self.environment)}",
            f"- {SHARED_MACHINE_NOTE}",
            "- cell: the code cell's number as nbval names it (`::Cell N`, code cells only, from 0)",
            "",
            "| notebook | status | duration (s) | cell | error | undeclared parameters |",
            "|---|---|---:|---:|---|---|",
        ]
        for r in self.results:
            error = f"{r.error_name}: {r.error_message}" if r.error_name else ""
            lines.append(
                f"| {_cell(r.path)} | {r.status} | {r.duration_s:.1f} | "
                f"{'' if r.code_cell is None else r.code_cell} | {_cell(error)} | "
                f"{_cell(', '.join(r.undeclared_parameters))} |"
            )
        return "\n".join(lines) + "\n"

    def write(self, folder: Path) -> None:
        """Write report.json and report.md into the run folder."""
        (folder / "report.json").write_text(self.to_json(), encoding="utf-8")
        (folder / "report.md").write_text(self.to_markdown(), encoding="utf-8")


# What a run records about its environment, and the label both the report's line and the comparison's
# table give it (in this order).
ENVIRONMENT_LABELS = (
    ("torch", "torch"),
    ("cuda", "CUDA"),
    ("cudnn", "cuDNN"),
    ("rocm", "ROCm"),
    ("device_name", "device"),
    ("cpu_capability", "CPU capability"),
    ("threads", "threads"),
    ("python", "Python"),
    ("course", "course commit"),
)


def environment_line(env: dict[str, Any]) -> str:
    """The recorded environment on one line: only what was recorded (CUDA and ROCm only when present)."""
    parts = [f"{label} {env[key]}" for key, label in ENVIRONMENT_LABELS if env.get(key) not in (None, "")]
    return "; ".join(parts) or "not recorded (a report from before environment records)"


def _cell(text: str, limit: int = 200) -> str:
    """Text made safe for one Markdown table cell: one line, pipes escaped, shortened."""
    one_line = " ".join(text.split())
    if len(one_line) > limit:
        one_line = one_line[: limit - 1] + "…"
    return one_line.replace("|", "\\|")


def load_report(folder: Path) -> RunReport:
    """Read a finished run's report.json."""
    path = Path(folder) / "report.json"
    if not path.is_file():
        raise FileNotFoundError(
            f"{folder} is not a finished run: expected {path} (written by `autograd-course run`)"
        )
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("report_version") not in _READABLE_VERSIONS:
        expected = " or ".join(map(str, _READABLE_VERSIONS))
        raise ValueError(f"{path}: report_version {data.get('report_version')!r}, expected {expected}")
    results = [NotebookResult(**r) for r in data.pop("results")]
    for key in ("report_version", "counts"):
        data.pop(key, None)
    return RunReport(**data, results=results)
