"""`autograd-course run`: execute the course headless with papermill, report, compare two runs."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

from autograd_course.commands._verbosity import add_verbosity, configure_logging
from autograd_course.protocol import CommandError

NAME = "run"
AUDIENCE = "maintainer"
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


def _change_kinds(text: str) -> tuple[str, ...]:
    # The regression stack needs papermill and nbval ([run]): imported only when `run` runs.
    from autograd_instructor.regression.compare import parse_change_kinds

    try:
        return parse_change_kinds(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--fail-on ")) from None


def _percent(text: str) -> float:
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a percentage such as 50; got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive percentage; got {text}")
    return value / 100


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
        help="compare two finished run folders instead of running: Markdown (or --json) to stdout",
    )
    parser.add_argument("--json", action="store_true", help="with --compare: print the comparison as JSON")
    parser.add_argument(
        "--fail-on",
        type=_change_kinds,
        default=(),
        metavar="KINDS",
        help="with --compare: exit 1 when a change of these kinds is found: status,output,duration,stall "
        "(stall: a notebook stalled in either run; default: exit 0 whatever changed)",
    )
    parser.add_argument(
        "--duration-threshold",
        type=_percent,
        metavar="PERCENT",
        help="with --compare: list a duration change beyond this many percent "
        "(default: beyond the spread of the two runs themselves)",
    )
    add_verbosity(parser)


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def _compare(args: argparse.Namespace, compare_runs: Any) -> int:
    """Print the comparison; exit 1 only when a change of a --fail-on kind was found."""
    comparison = compare_runs(*args.compare, duration_threshold=args.duration_threshold)
    print(comparison.to_json(args.fail_on) if args.json else comparison.to_markdown(), end="")
    if comparison.fails(args.fail_on):
        print(
            f"autograd-course run --compare: changes found:\n{_named_changes(comparison, args.fail_on)}",
            file=sys.stderr,
        )
        return 1
    return 0


def _named_changes(comparison: Any, kinds: tuple[str, ...]) -> str:
    """One line per --fail-on kind found: its notebooks; for output, their cells (nbval numbers)."""
    found = comparison.changes()
    cells = {d.path: [c.cell for c in d.cells] for d in comparison.notebooks}
    lines = []
    for kind in kinds:
        if found[kind]:
            named = [
                f"{path} (cells {', '.join(map(str, cells[path]))})"
                if kind == "output" and cells.get(path)
                else path
                for path in found[kind]
            ]
            lines.append(f"  {kind}: {'; '.join(named)}")
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    """Run the notebooks (exit 0 when all pass, 1 otherwise) or compare two runs (exit 1 on --fail-on)."""
    # papermill and nbval ([run]): imported only when `run` runs, not for every `autograd-course` call.
    from autograd_instructor.regression import (
        ParameterError,
        RunError,
        collect_notebooks,
        compare_runs,
        default_output,
        progress_wanted,
        run_notebooks,
    )

    configure_logging(args, "autograd_instructor.regression")
    # The report says what went wrong; papermill's and nbclient's log lines would only repeat it.
    logging.getLogger("papermill").addHandler(logging.NullHandler())
    logging.getLogger("papermill").propagate = False
    try:
        if args.compare:
            if args.paths or args.parameter or args.output:
                raise RunError("--compare takes two run folders and no notebooks, parameters or --output")
            return _compare(args, compare_runs)
        if args.json or args.fail_on or args.duration_threshold is not None:
            raise RunError("--json, --fail-on and --duration-threshold go with --compare RUN_A RUN_B")
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
        raise CommandError(str(exc)) from None
    except KeyboardInterrupt:
        print("autograd-course run: interrupted; kernels stopped, no report written", file=sys.stderr)
        return 130
    for r in report.results:
        if not r.passed:
            where = "" if r.code_cell is None else f" at code cell {r.code_cell} (nbval ::Cell {r.code_cell})"
            message = f"{r.status.upper()}: {r.path}{where}: {r.error_name}: {r.error_message}"
            print(message if len(message) <= 300 else message[:299] + "…", file=sys.stderr)
    counts = ", ".join(f"{n} {s}" for s, n in report.counts().items() if n)
    summary = f"{len(report.results)} notebooks: {counts} in {report.duration_s:.1f} s"
    print(f"{summary}; report: {output / 'report.md'}")
    return 0 if report.passed else 1
