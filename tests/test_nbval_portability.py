"""Strict nbval on every stored notebook with the portable CPU kernels and one thread (tests/strict_nbval.py).

Together with the regular suite's nbval this covers both capabilities and both thread counts a
learner's machine or a CI runner may have. Where the Colab-pinned environment runs
(`AUTOGRAD_COURSE_COLAB_ENV=1`, as in CI), its kernel runs this corner instead
(tests/test_colab_env.py), so each notebook is executed there once for both checks.
"""

from __future__ import annotations

import os
import sys

import pytest
from strict_nbval import PORTABLE, child_environment, strict_nbval_failures

from autograd_instructor.regression import probe_interpreter

pytestmark = pytest.mark.slow


def test_the_settings_reach_torch_in_a_fresh_interpreter():
    # nbval starts its kernels with this interpreter (--nbval-current-env) and this environment.
    env = probe_interpreter(sys.executable, extra_env=PORTABLE)
    assert (env["cpu_capability"], env["threads"]) == ("DEFAULT", 1)


@pytest.mark.skipif(
    os.environ.get("AUTOGRAD_COURSE_COLAB_ENV") == "1",
    reason="the Colab-pinned kernel runs this corner (tests/test_colab_env.py)",
)
def test_strict_nbval_holds_with_default_cpu_capability_and_one_thread():
    failed = strict_nbval_failures(child_environment())
    assert not failed, (
        "stored outputs differ with ATEN_CPU_CAPABILITY=default and 1 thread; print at a precision the "
        "arithmetic supports across kernels, or check with a tolerance:\n" + failed
    )
