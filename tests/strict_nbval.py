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

__all__ = ["PORTABLE", "child_environment", "strict_nbval_failures"]

ROOT = Path(__file__).resolve().parent.parent
PORTABLE = {"ATEN_CPU_CAPABILITY": "default", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def child_environment(base: dict[str, str] | None = None) -> dict[str, str]:
    """`base` (default: this process's environment) with the portable settings, less the outer pytest's."""
    env = {k: v for k, v in (base or os.environ).items() if not k.startswith(("PYTEST_", "PYTHONBREAKPOINT"))}
    return {**env, **PORTABLE}


def strict_nbval_failures(env: dict[str, str], *options: str, timeout: float = 900) -> str:
    """Run strict nbval on notebooks/ and solutions/ in a child pytest (2 workers); "" when every cell holds,
    else the failed cells. `options` are added to pytest's command line (pyproject.toml's addopts apply)."""
    folders = [f for f in ("notebooks", "solutions") if (ROOT / f).is_dir()]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", *options, *folders],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode == 0:
        return ""
    failed = [line for line in done.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
    return "\n".join(failed or done.stdout.splitlines()[-30:]) + "\n" + done.stderr[-2000:]
