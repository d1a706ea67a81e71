"""Strict nbval on every stored notebook with the portable CPU kernels and one thread.

The regular suite (`pytest -n 2`) checks the stored outputs with the machine's best CPU capability
(AVX2/AVX512 on CI runners) and torch's default thread count (the 2 cores of a CI runner). This test
checks the other corner: `ATEN_CPU_CAPABILITY=default` (the kernels a CPU without AVX2 gets) with one
thread (`OMP_NUM_THREADS=1`, which is what torch.get_num_threads() starts from). Together the two
runs cover both capabilities and both thread counts a learner's machine or a CI runner may have.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograd_course.regression import probe_interpreter

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
PORTABLE = {"ATEN_CPU_CAPABILITY": "default", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def child_environment() -> dict[str, str]:
    """This process's environment with the portable settings, without the outer pytest/xdist's variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHONBREAKPOINT"))}
    return {**env, **PORTABLE}


def test_the_settings_reach_torch_in_a_fresh_interpreter():
    # nbval starts its kernels with this interpreter (--nbval-current-env) and this environment.
    env = probe_interpreter(sys.executable, extra_env=PORTABLE)
    assert (env["cpu_capability"], env["threads"]) == ("DEFAULT", 1)


def test_strict_nbval_holds_with_default_cpu_capability_and_one_thread():
    folders = [f for f in ("notebooks", "solutions") if (ROOT / f).is_dir()]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", *folders],
        cwd=ROOT,
        env=child_environment(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    failed = [line for line in done.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
    assert done.returncode == 0, (
        "stored outputs differ with ATEN_CPU_CAPABILITY=default and 1 thread; print at a precision the "
        "arithmetic supports across kernels, or check with a tolerance:\n"
        + "\n".join(failed or done.stdout.splitlines()[-30:])
    )
