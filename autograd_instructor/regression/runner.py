"""A regression run: find the notebooks, type the parameters, run them in parallel, write the report."""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import nbformat
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
from tqdm import tqdm

from autograd_course.course import content_dir, course_notebooks, course_root
from autograd_course.execution.kernel import KernelRegistry
from autograd_instructor.regression.environment import course_version, probe_interpreter
from autograd_instructor.regression.execute import NotebookJob, execute_notebook
from autograd_instructor.regression.params import declared_parameters, type_parameters
from autograd_instructor.regression.report import NotebookResult, RunReport

__all__ = [
    "RunError",
    "code_cell_number",
    "collect_notebooks",
    "default_output",
    "kernel_environment",
    "plan_jobs",
    "progress_wanted",
    "run_notebooks",
]


log = logging.getLogger("autograd_instructor.regression")


class RunError(ValueError):
    """Bad input to a run: a missing notebook, an output folder in use, an unknown kernel."""


def _notebooks_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.ipynb") if p.is_file() and not p.name.startswith("."))


def collect_notebooks(paths: Sequence[Path] = (), root: Path | None = None) -> list[Path]:
    """The notebooks to run, in order: the given files and folders, else the course order.

    The course order is notebooks/NN_*.ipynb sorted, then every notebook in solutions/ sorted.
    """
    root = root or course_root()
    if not paths:
        lessons = course_notebooks("notebooks", root)
        solved = content_dir("solutions", root)
        solutions = _notebooks_in(solved) if solved.is_dir() else []
        if not lessons + solutions:
            raise RunError(f"no notebooks found in {content_dir('notebooks', root)} or {solved}")
        return lessons + solutions
    found: list[Path] = []
    for raw in paths:
        path = Path(raw).resolve()
        if path.is_dir():
            inside = _notebooks_in(path)
            if not inside:
                raise RunError(f"{raw}: a folder with no .ipynb notebooks in it")
            found.extend(inside)
        elif path.is_file() and path.suffix == ".ipynb":
            found.append(path)
        elif path.exists():
            raise RunError(f"{raw}: expected a .ipynb notebook or a folder of them")
        else:
            raise RunError(f"{raw}: no such notebook or folder")
    return list(dict.fromkeys(found))  # each notebook once, first mention wins


def default_output(root: Path | None = None) -> Path:
    """runs/<UTC timestamp>/ under root (default: the current directory), made unique if taken."""
    base = (root or Path.cwd()) / "runs" / datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    candidate, n = base, 1
    while candidate.exists():
        n += 1
        candidate = base.with_name(f"{base.name}-{n}")
    return candidate


def _label_base(notebooks: Sequence[Path], root: Path) -> Path:
    """The folder that labels and mirrored output paths are relative to."""
    if all(nb.is_relative_to(root) for nb in notebooks):
        return root
    return Path(os.path.commonpath([nb.parent for nb in notebooks]))


def plan_jobs(notebooks: Sequence[Path], output: Path, raw_parameters: dict[str, str]) -> list[NotebookJob]:
    """One job per notebook: mirrored output path, typed parameters, undeclared names; checks first."""
    root = course_root().resolve()
    base = _label_base(notebooks, root)
    output = output.resolve()
    jobs = []
    for nb in notebooks:
        label = nb.relative_to(base).as_posix()
        target = output / label
        if target == nb:
            raise RunError(f"--output {output} would overwrite the source {nb}; choose another folder")
        try:
            declared = declared_parameters(nb)
        except (ValueError, OSError) as exc:  # nbformat's read errors are ValueErrors
            raise RunError(f"{label}: not a readable notebook ({type(exc).__name__}: {exc})") from None
        values, undeclared = type_parameters(raw_parameters, declared, label)
        defaults = {name: p.default_value() for name, p in declared.items()}
        log = output / "logs" / f"{label}.log"
        jobs.append(NotebookJob(nb, target, label, log, values, undeclared, defaults))
    return jobs


def _prepare_output(output: Path) -> None:
    if output.exists() and (not output.is_dir() or any(output.iterdir())):
        raise RunError(f"--output {output} already exists and is not an empty folder; choose a new one")
    output.mkdir(parents=True, exist_ok=True)


def _kernel_spec(kernel: str) -> Any:
    try:
        return KernelSpecManager().get_kernel_spec(kernel)
    except NoSuchKernel:
        names = ", ".join(sorted(KernelSpecManager().find_kernel_specs())) or "none installed"
        raise RunError(f"--kernel {kernel}: no such Jupyter kernel (available: {names})") from None


def kernel_environment(kernel: str, device: str | None = None) -> dict[str, Any]:
    """What the kernel's interpreter runs the notebooks with (see environment.PROBE), and the course commit.

    Always has the keys "python" and "torch" (None when they could not be read).
    """
    spec = _kernel_spec(kernel)
    exe = spec.argv[0] if spec.argv else sys.executable
    # jupyter_client runs a spec's bare "python" as the current interpreter; do the same.
    if exe in {"python", f"python{sys.version_info[0]}", "python{}.{}".format(*sys.version_info[:2])}:
        exe = sys.executable
    env = {"python": None, "torch": None}
    env.update(probe_interpreter(exe, device, extra_env=dict(spec.env or {})))
    env["course"] = course_version(course_root())
    return env


def code_cell_number(notebook: Path, cell_index: int | None) -> int | None:
    """nbval's number for a cell (`::Cell N`: code cells only, from 0) given its index among all cells."""
    if cell_index is None:
        return None
    try:
        cells = nbformat.read(notebook, as_version=4).cells
    except (ValueError, OSError):
        return None
    if not 0 <= cell_index < len(cells) or cells[cell_index].cell_type != "code":
        return None
    return sum(c.cell_type == "code" for c in cells[:cell_index])


def _device(jobs: Sequence[NotebookJob], raw: dict[str, str]) -> str | None:
    """The device the notebooks ran on: -p device, else the default they all declare."""
    if "device" in raw:
        return raw["device"]
    defaults = {str(job.defaults["device"]) for job in jobs if "device" in job.defaults}
    return defaults.pop() if len(defaults) == 1 else None


def _progress(total: int, enabled: bool) -> Any:
    if not enabled:
        return None
    return tqdm(total=total, unit="notebook", desc="run", file=sys.stderr)


def progress_wanted() -> bool:
    """A progress bar on a terminal, none in CI or when stderr is redirected."""
    ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
    return sys.stderr.isatty() and not ci


def _execute_all(
    planned: Sequence[NotebookJob], kernel: str, timeout_s: float, jobs: int, progress: bool
) -> dict[str, NotebookResult]:
    """Run the jobs `jobs` at a time; on Ctrl-C (or a bug) stop every kernel and start nothing new."""
    results: dict[str, NotebookResult] = {}
    bar = _progress(len(planned), progress)
    kernels = KernelRegistry()
    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="notebook")
    try:
        futures = [pool.submit(execute_notebook, job, kernel, timeout_s, registry=kernels) for job in planned]
        for future in as_completed(futures):
            result = future.result()
            results[result.path] = result
            (log.debug if bar is not None else log.info)(  # the bar says it already
                "%d/%d %s: %s in %.1f s",
                len(results),
                len(planned),
                result.path,
                result.status,
                result.duration_s,
            )
            if bar is not None:
                bar.set_postfix_str(f"{result.path}: {result.status}", refresh=False)
                bar.update(1)
    except BaseException:
        # The worker threads end at once instead of running their notebooks to completion.
        pool.shutdown(wait=False, cancel_futures=True)
        kernels.kill_all()
        raise
    finally:
        pool.shutdown(wait=True)
        if bar is not None:
            bar.close()
    return results


def _finish(report: RunReport, planned: Sequence[NotebookJob], results: dict, output: Path) -> None:
    """Put the results in plan order, with nbval cell numbers and paths relative to the run folder."""
    report.torch_version, report.python_version = report.environment["torch"], report.environment["python"]
    report.results = [results[job.label] for job in planned]
    for job, r in zip(planned, report.results):
        r.code_cell = code_cell_number(job.source, r.cell_index)
        r.output = Path(r.output).relative_to(output).as_posix()
        if r.kernel_log:
            r.kernel_log = Path(r.kernel_log).relative_to(output).as_posix()


def run_notebooks(
    notebooks: Sequence[Path],
    output: Path,
    parameters: dict[str, str] | None = None,
    *,
    kernel: str = "python3",
    timeout_s: float = 300,
    jobs: int = 1,
    progress: bool = False,
    warn: Callable[[str], None] | None = None,
) -> RunReport:
    """Run each notebook in its own kernel, `jobs` at a time; write executed copies and the report."""
    if jobs < 1:
        raise RunError(f"--jobs must be at least 1; got {jobs}")
    if timeout_s <= 0:
        raise RunError(f"--timeout must be a positive number of seconds; got {timeout_s}")
    raw = dict(parameters or {})
    _kernel_spec(kernel)  # an unknown kernel is refused before anything is planned or probed
    planned = plan_jobs(notebooks, output, raw)
    output = output.resolve()
    _prepare_output(output)
    for job in planned:
        if job.undeclared and warn is not None:
            warn(f"{job.label} does not declare {', '.join(job.undeclared)}: not passed to it")
    report = RunReport(
        parameters=raw,
        device=_device(planned, raw),
        torch_version=None,
        python_version=None,
        kernel=kernel,
        timeout_s=timeout_s,
        jobs=jobs,
        started=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    log.info("running %d notebooks, %d at a time, into %s", len(planned), jobs, output)
    # The probe imports torch (seconds): it runs beside the notebooks, not before them.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="probe") as probe:
        env_future = probe.submit(kernel_environment, kernel, report.device)
        start = time.perf_counter()
        results = _execute_all(planned, kernel, timeout_s, jobs, progress)
        report.environment = env_future.result()
    _finish(report, planned, results, output)
    report.duration_s = round(time.perf_counter() - start, 3)
    report.write(output)
    return report
