"""`autograd-course run`: execute the course headless with papermill, report, compare two runs."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

NAME = "run"
HELP = "run the course headless with papermill and report what broke (or --compare two runs)"


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1; got {value}")
    return value


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds as a positive number; got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected seconds as a positive number; got {text}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Paths, output folder, parallel jobs, parameters, kernel, cell timeout, or --compare."""
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="NOTEBOOK_OR_DIR",
        help="notebooks or folders of notebooks (default: notebooks/ then solutions/, in course order)",
    )
    parser.add_argument("-o", "--output", type=Path, help="run folder to create (default: runs/<timestamp>/)")
    parser.add_argument(
        "-j", "--jobs", type=_positive_int, default=1, help="notebooks run in parallel (default 1)"
    )
    parser.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        help="set a notebook parameter, typed as the notebook declares it (e.g. -p device cuda -p seed 3)",
    )
    parser.add_argument("--kernel", default="python3", help="Jupyter kernel to run in (default python3)")
    parser.add_argument(
        "--timeout", type=_positive_seconds, default=300.0, help="seconds one cell may run (default 300)"
    )
    parser.add_argument(
        "--compare",
        nargs=2,
        type=Path,
        metavar=("RUN_A", "RUN_B"),
        help="compare two finished run folders instead of running: Markdown to stdout",
    )


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def main(args: argparse.Namespace) -> int:
    """Run the notebooks (exit 0 when all pass, 1 otherwise) or compare two runs (exit 0)."""
    from autograd_course.regression import (
        ParameterError,
        RunError,
        collect_notebooks,
        compare_runs,
        default_output,
        progress_wanted,
        run_notebooks,
    )

    # The report says what went wrong; papermill's and nbclient's log lines would only repeat it.
    logging.getLogger("papermill").addHandler(logging.NullHandler())
    logging.getLogger("papermill").propagate = False
    try:
        if args.compare:
            if args.paths or args.parameter:
                raise RunError("--compare takes two run folders and no notebooks or parameters")
            print(compare_runs(*args.compare).to_markdown(), end="")
            return 0
        names = [name for name, _ in args.parameter]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise RunError(f"parameter given more than once: {', '.join(duplicates)}")
        notebooks = collect_notebooks(args.paths)
        output = args.output or default_output()
        report = run_notebooks(
            notebooks,
            output,
            dict(args.parameter),
            kernel=args.kernel,
            timeout_s=args.timeout,
            jobs=args.jobs,
            progress=progress_wanted(),
            warn=_warn,
        )
    except (RunError, ParameterError, FileNotFoundError, ValueError) as exc:
        print(f"autograd-course run: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("autograd-course run: interrupted; kernels stopped, no report written", file=sys.stderr)
        return 130
    for r in report.results:
        if not r.passed:
            where = "" if r.cell_index is None else f" at cell {r.cell_index}"
            message = f"{r.status.upper()}: {r.path}{where}: {r.error_name}: {r.error_message}"
            print(message if len(message) <= 300 else message[:299] + "…", file=sys.stderr)
    counts = ", ".join(f"{n} {s}" for s, n in report.counts().items() if n)
    summary = f"{len(report.results)} notebooks: {counts} in {report.duration_s:.1f} s"
    print(f"{summary}; report: {output / 'report.md'}")
    return 0 if report.passed else 1
