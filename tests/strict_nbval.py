"""Strict nbval on every stored notebook in a child pytest: another CPU corner, another kernel.

The regular suite (`pytest -n 2`) checks the stored outputs with the machine's best CPU capability
(AVX2/AVX512 on CI runners) and torch's default thread count (the 2 cores of a CI runner). The other
corner is `ATEN_CPU_CAPABILITY=default` (the kernels a CPU without AVX2 gets) with one thread
(`OMP_NUM_THREADS=1`, which is what torch.get_num_threads() starts from): a child pytest checks it,
with this interpreter's kernel (tests/test_nbval_portability.py) or, in CI, with the kernel of the
Colab-pinned venv (tests/test_colab_env.py), so that one execution of each notebook checks both.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

__all__ = ["NO_KERNEL", "PORTABLE", "child_environment", "strict_nbval_failures", "unstarted"]

ROOT = Path(__file__).resolve().parent.parent
PORTABLE = {"ATEN_CPU_CAPABILITY": "default", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def child_environment(base: dict[str, str] | None = None) -> dict[str, str]:
    """`base` (default: this process's environment) with the portable settings, less the outer pytest's."""
    env = {k: v for k, v in (base or os.environ).items() if not k.startswith(("PYTEST_", "PYTHONBREAKPOINT"))}
    return {**env, **PORTABLE}


# nbval's error when a notebook's kernel never answered: it says nothing about the notebook (a port taken
# by another process while the kernel started, on a machine this busy, leaves it unable to answer).
NO_KERNEL = "RuntimeError: Kernel didn't respond in"


def unstarted(failed: list[str]) -> list[str]:
    """The notebooks of `failed` (pytest's FAILED/ERROR lines) when every failure is a kernel that never
    answered; [] when any is something else (a cell error, an output that differs)."""
    cells = [line for line in failed if "::" in line]
    if not cells or not all(NO_KERNEL in line for line in cells):
        return []
    return sorted({line.split()[1].split("::")[0] for line in cells})


def strict_nbval_failures(env: dict[str, str], *options: str, timeout: float = 900) -> str:
    """Run strict nbval on notebooks/ and solutions/ in a child pytest (2 workers); "" when every cell holds,
    else the failed cells. `options` are added to pytest's command line (pyproject.toml's addopts apply).
    Notebooks whose kernel never answered, and nothing else, run once more."""
    folders = [f for f in ("notebooks", "solutions") if (ROOT / f).is_dir()]
    done = _child_pytest(env, [*options, *folders], timeout)
    failed = _failed_lines(done)
    if done.returncode != 0 and (again := unstarted(failed)):
        done = _child_pytest(env, [*options, *again], timeout)
        failed = _failed_lines(done)
    if done.returncode == 0:
        return ""
    return "\n".join(failed or done.stdout.splitlines()[-30:]) + "\n" + done.stderr[-2000:]


def _failed_lines(done: subprocess.CompletedProcess) -> list[str]:
    return [line for line in done.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]


def _child_pytest(env: dict[str, str], args: list[str], timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
