"""Benchmark: a whole `autograd-course run` against the floor of kernel start plus `import torch`.

The floor is the time papermill takes to run a one-cell `import torch` notebook, times the number
of notebooks in the run: what any runner that gives each notebook a fresh kernel must pay.
Both are measured in this one process, the floor before and after the run (median), so a
change in machine load shifts both. Target: run / floor <= 1.5 with --jobs 2. A stricter
floor, with the kernel killed rather than shut down gracefully (as the runner does), is
printed too.

    .venv/bin/python benchmarks/bench_run.py [NOTEBOOK_OR_DIR ...] [--jobs 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import papermill

from autograd_instructor.regression import collect_notebooks, run_notebooks

TARGET = 1.5


def floor_once(folder: Path, **options: str) -> float:
    """Seconds for papermill to run a one-cell `import torch` notebook in a fresh kernel (options: engine)."""
    source = folder / "floor.ipynb"
    if not source.exists():
        nb = nbformat.v4.new_notebook()
        nb.cells.append(nbformat.v4.new_code_cell("import torch"))
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, source)
    start = time.perf_counter()
    papermill.execute_notebook(
        str(source), str(folder / "floor-out.ipynb"), kernel_name="python3", progress_bar=False, **options
    )
    return time.perf_counter() - start


def main() -> int:
    """Measure the floor and the run; print both and the ratio."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("paths", nargs="*", type=Path, help="notebooks or folders (default: the course)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="floor samples before the run (one more after)")
    args = parser.parse_args()
    logging.getLogger("papermill").addHandler(logging.NullHandler())
    logging.getLogger("papermill").propagate = False

    notebooks = collect_notebooks(args.paths)
    with tempfile.TemporaryDirectory(prefix="bench-run-") as tmp:
        folder = Path(tmp)
        floor_once(folder)  # warm-up: first imports and disk cache, not counted
        samples: list[float] = []
        strict: list[float] = []  # with the kernel killed, not shut down gracefully, as the runner does

        def sample() -> None:  # the two floors alternate, so load drifts hit both alike
            samples.append(floor_once(folder))
            strict.append(floor_once(folder, shutdown_kernel="immediate"))

        for _ in range(args.repeat):
            sample()
        start = time.perf_counter()
        report = run_notebooks(notebooks, folder / "run", jobs=args.jobs)
        run_s = time.perf_counter() - start
        sample()

    one = statistics.median(samples)
    floor = one * len(notebooks)
    ratio = run_s / floor
    counts = ", ".join(f"{n} {s}" for s, n in report.counts().items() if n)
    print(f"notebooks:          {len(notebooks)} ({counts})")
    listed = ", ".join(f"{s:.2f}" for s in samples)
    print(f"import torch cell:  {one:.2f} s median of {len(samples)} ({listed})")
    print(f"floor:              {floor:.1f} s  ({len(notebooks)} x {one:.2f} s)")
    print(f"run --jobs {args.jobs}:       {run_s:.1f} s")
    print(f"sum of notebooks:   {sum(r.duration_s for r in report.results):.1f} s")
    print(f"ratio run/floor:    {ratio:.2f}  (target <= {TARGET})")
    strict_floor = statistics.median(strict) * len(notebooks)
    strict_ratio = run_s / strict_floor
    print(
        f"strict floor:       {strict_floor:.1f} s  ({statistics.median(strict):.2f} s each, kernel killed)"
    )
    print(f"ratio run/strict:   {strict_ratio:.2f}")
    slowest = sorted(report.results, key=lambda r: r.duration_s, reverse=True)[:5]
    print("slowest:            " + ", ".join(f"{Path(r.path).name} {r.duration_s:.1f} s" for r in slowest))
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
