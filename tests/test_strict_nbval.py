"""tests/strict_nbval.py runs again only the notebooks whose kernel never answered, and only when
nothing else failed: lines as a clean-clone CI run printed them."""

from __future__ import annotations

from strict_nbval import unstarted

NO_ANSWER = (
    "ERROR notebooks/04_inplace_operations.ipynb::Cell {} - RuntimeError: Kernel didn't respond in 60 seconds"
)
LOGGED = 'ERROR    nbval:kernel.py:59 Failure starting kernel "colab-pinned"'


def test_a_notebook_whose_kernel_never_answered_runs_again() -> None:
    failed = [LOGGED, *(NO_ANSWER.format(k) for k in range(3))]
    assert unstarted(failed) == ["notebooks/04_inplace_operations.ipynb"]


def test_an_output_that_differs_is_never_run_again() -> None:
    differs = "FAILED solutions/A_detached_output.ipynb::Cell 5 - Cell outputs differ"
    assert unstarted([LOGGED, NO_ANSWER.format(0), differs]) == []
    assert unstarted([differs]) == []
    assert unstarted([LOGGED]) == []  # no cell named: nothing to run again
