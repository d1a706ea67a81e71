"""Your-turn activities of lesson 03 · Backward twice."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.choice import offering, set_verdict, strings_of
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


SECOND_BACKWARD = {  # the four losses of the task, as code: which second backward() raises is asked of torch
    "a": lambda x: x.exp().sum(),
    "b": lambda x: (x - 1).sum(),
    "c": lambda x: (x * 3).sum(),
    "d": lambda x: x.mean(),
}
WHY = {  # why each one raises or not (as torch 2.13 and 2.14 do), said to a learner who got it wrong
    "a": "exp's derivative is its own output, saved for backward and freed after the first pass",
    "b": "subtraction's derivative is 1 whatever x is: nothing is saved, nothing to free",
    "c": "multiplication saves its other factor, even the constant 3, and the first pass frees it",
    "d": "mean's derivative is 1/n: it keeps only the size, no tensor, so there is nothing to free",
}


def _raises_second_time(loss_of: Any) -> bool:
    """Whether a second backward() of loss_of(x) raises, run here on the installed torch."""
    import torch

    x = torch.tensor([2.0], requires_grad=True)
    loss = loss_of(x)
    loss.backward()
    try:
        loss.backward()
    except RuntimeError:
        return True
    return False


@offering(lambda: SECOND_BACKWARD)
def _check_raising(raising: Any) -> tuple:
    names = strings_of(raising)
    if names is None:
        return incorrect(f'expected a set of letters such as {{"a", "b"}}, got {raising!r}')
    given = {n.strip().lower() for n in names}
    if given - set(SECOND_BACKWARD):
        return incorrect(f"choose among a, b, c, d; you gave {sorted(given - set(SECOND_BACKWARD))}")
    actual = {name for name, loss_of in SECOND_BACKWARD.items() if _raises_second_time(loss_of)}
    return set_verdict(given, actual, WHY, "raise on a second backward()")


def _sizes_every_other(recur: Any, sequence: Any, wanted: Any) -> list[int]:
    """Operations in each of five losses when the state is detached at even steps only."""
    import torch

    from helpers import autograd_graph

    state, sizes = torch.zeros(4, device=sequence.device), []
    for t in range(5):
        if t % 2 == 0:
            state = state.detach()
        state = recur(state, sequence[t])
        sizes.append(len(autograd_graph(((state - wanted[t]) ** 2).mean()).ops))
    return sizes


def _check_sizes(predicted_sizes: Any, recur: Any, sequence: Any, wanted: Any) -> tuple:
    if not isinstance(predicted_sizes, (list, tuple)) or not all(
        isinstance(n, int) and not isinstance(n, bool) for n in predicted_sizes
    ):
        return incorrect(
            f"expected a list of five whole numbers such as [11, 11, 11, 11, 11], got {predicted_sizes!r}"
        )
    given, right = list(predicted_sizes), _sizes_every_other(recur, sequence, wanted)
    if given == right:
        return correct(
            f"{right}: a detach every other step lets each loss reach back one step at most, so backward"
            " walks at most two steps: truncated backpropagation through time with a window of 2."
        )
    if len(given) != len(right):
        return incorrect(f"expected five numbers, one per loss; got {len(given)}")
    return incorrect(
        f"you gave {given}; one step adds the same operations each time (see the growing list above), and a"
        " detach() starts a loss's record afresh"
    )


def _check_baseline(update_baseline: Any) -> tuple:
    import torch

    if not callable(update_baseline):
        return incorrect(f"expected update_baseline to be a function, got {type(update_baseline).__name__}")
    w = torch.tensor(2.0, requires_grad=True)
    baseline, expected = torch.zeros(()), 0.0
    for t in range(1, 5):
        reward = w * t  # a reward the policy computed: it requires grad
        baseline, expected = update_baseline(baseline, reward), 0.9 * expected + 0.1 * 2.0 * t
        if isinstance(baseline, torch.Tensor) and baseline.grad_fn is not None:
            return incorrect(
                f"after step {t} the baseline has grad_fn {type(baseline.grad_fn).__name__}: it carries this"
                " iteration's graph into the next one's loss"
            )
        value = float(baseline)
        if abs(value - expected) > 1e-5:
            return incorrect(
                f"after step {t} the baseline is {value:.4f}, expected the running average {expected:.4f}:"
                " keep its value, drop only its history"
            )
    return correct("the baseline keeps averaging the rewards, and no iteration's graph reaches the next one.")


ACTIVITIES = (
    Activity(
        id="03.1",
        task="Predict which of four losses of x raise on a second backward(): exp, x - 1, x * 3, mean.",
        names=("raising",),
        check=_check_raising,
        hints=(
            "The error comes from tensors saved for backward and freed after the first pass.",
            "Which derivatives need a tensor's value: exp(x)'s? x - 1's? x * 3's (in x)? mean's?",
            "exp saves its output, multiplication its other factor; subtraction and mean save no tensor.",
        ),
        solution='raising = {"a", "c"}',
    ),
    Activity(
        id="03.2",
        task="Predict the graph sizes of five losses when the state is detached every other step.",
        names=("predicted_sizes",),
        check=_check_sizes,
        context=("recur", "sequence", "wanted"),
        hints=(
            "Read the two lists above: the first loss has 11 operations, and each carried step adds 9.",
            "At t = 0, 2, 4 the state is detached before the step: those losses see one step. At t = 1, 3 the"
            " loss reaches back to the last detach: two steps.",
        ),
        solution="predicted_sizes = [11, 20, 11, 20, 11]",
    ),
    Activity(
        id="03.3",
        task="Write update_baseline(baseline, reward): a running average linking no iteration to the next.",
        names=("update_baseline",),
        check=_check_baseline,
        hints=(
            "Which tensor carries a graph from one iteration into the next iteration's loss?",
            "The reward carries the policy's graph; average only its value, reward.detach().",
        ),
        solution="def update_baseline(baseline, reward):\n    return 0.9 * baseline + 0.1 * reward.detach()",
    ),
)
