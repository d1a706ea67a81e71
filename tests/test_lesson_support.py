"""lesson_support: anomaly-warning parsing, interleaved timing and the plotting glue of lessons 07-12."""

from __future__ import annotations

import warnings

import matplotlib
import pytest
import torch

from autograd_course.lesson_support import (
    forward_lines,
    interleaved_seconds,
    plot_curves,
    plot_fd_errors,
    plot_layer_magnitudes,
    plot_relative_curves,
    run_with_anomaly,
)

matplotlib.use("Agg")


def nan_in_backward() -> None:
    w = torch.tensor([0.0], requires_grad=True)
    (torch.sqrt(w) ** 2).sum().backward()  # 2 * sqrt(0) = 0 times sqrt' = inf: NaN


def test_run_with_anomaly_names_the_node_and_the_forward_line() -> None:
    error, lines = run_with_anomaly(nan_in_backward)
    assert error == "Function 'SqrtBackward0' returned nan values in its 0th output."
    assert lines == ["(torch.sqrt(w) ** 2).sum().backward()  # 2 * sqrt(0) = 0 times sqrt' = inf: NaN"]
    assert not torch.is_anomaly_enabled()


def test_run_with_anomaly_on_a_clean_step_returns_nothing() -> None:
    w = torch.tensor([4.0], requires_grad=True)
    assert run_with_anomaly(lambda: torch.sqrt(w).sum().backward()) == (None, [])
    assert w.grad.item() == 0.25


def test_forward_lines_keeps_the_innermost_user_frame_only() -> None:
    message = (
        "Error detected in PowBackward0. Traceback of forward call that caused the error:\n"
        '  File "/work/lesson.py", line 3, in <module>\n    outer()\n'
        '  File "/work/lesson.py", line 9, in outer\n    y = x ** 2\n'
        '  File "/usr/lib/python3/site-packages/torch/x.py", line 1, in f\n    internal()\n'
    )
    caught = [warnings.WarningMessage(UserWarning(message), UserWarning, "f.py", 1)]
    assert forward_lines(caught) == ["y = x ** 2"]
    assert forward_lines([]) == []


def test_interleaved_seconds_alternates_and_times_every_call() -> None:
    order: list[str] = []
    times = interleaved_seconds({"a": lambda: order.append("a"), "b": lambda: order.append("b")}, repeats=3)
    assert order == ["a", "b"] * 3
    assert {k: len(v) for k, v in times.items()} == {"a": 3, "b": 3}
    assert all(t >= 0 for v in times.values() for t in v)


@pytest.mark.parametrize("runs, repeats", [({}, 3), ({"a": lambda: None}, 0)])
def test_interleaved_seconds_rejects_nothing_to_time(runs: dict, repeats: int) -> None:
    with pytest.raises(ValueError, match="at least one function and repeats >= 1"):
        interleaved_seconds(runs, repeats=repeats)


def test_plots_draw_the_data_they_are_given() -> None:
    import matplotlib.pyplot as plt

    plt.close("all")
    plot_relative_curves([1.0, 2.0, 20.0], [1.0, 1.5, 30.0], norm_step=2, loss_step=2, lr=0.1)
    plot_curves([3.0, 2.0], [1.0, 0.5], "title", cap=1.0)
    plot_fd_errors([1e-1, 1e-2], {torch.float32: [1e-3, 1e-4]}, default_eps=1e-2)
    plot_layer_magnitudes(["a", "b"], [1e-2, 1e-3], [1e-1, 1e-2])
    figures = [plt.figure(n) for n in plt.get_fignums()]
    assert len(figures) == 4
    relative = figures[0].axes[0].lines[0].get_ydata().tolist()
    assert relative == [1.0, 2.0, 20.0]  # the norm relative to step 0
    assert figures[2].axes[0].lines[0].get_label() == "float32"
    plt.close("all")
