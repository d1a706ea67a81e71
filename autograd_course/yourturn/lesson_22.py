"""Your-turn activities of lesson 22 · Distributed training and device errors."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from autograd_course.yourturn.answers import whole_number_of
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


@contextmanager
def _process_group() -> Iterator[None]:
    """The lesson's process group when one is running, else a gloo group of one process for the check."""
    import torch.distributed as dist

    if dist.is_initialized():
        yield
        return
    with tempfile.TemporaryDirectory() as rendezvous:
        dist.init_process_group("gloo", init_method=Path(rendezvous, "store").as_uri(), rank=0, world_size=1)
        try:
            yield
        finally:
            dist.destroy_process_group()


def _counted_ddp(model: Any) -> tuple[Any, list[int]]:
    """model wrapped in DDP with a comm hook that counts its all-reduces (one call per bucket)."""
    from torch import nn
    from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook

    ddp = nn.parallel.DistributedDataParallel(model)
    calls: list[int] = []

    def counting_hook(state, bucket):  # DDP checks the annotations it finds: none here
        calls.append(len(bucket.gradients()))
        return allreduce_hook(state, bucket)

    ddp.register_comm_hook(None, counting_hook)
    return ddp, calls


def _last_one_in_no_sync() -> int:
    """All-reduces of two steps of four micro-batches whose LAST backward runs under no_sync."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    with _process_group():
        ddp, calls = _counted_ddp(
            nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
        )  # the lesson's shape
        micro_batches = torch.randn(4, 2, 6)
        for _ in range(2):
            for i, batch in enumerate(micro_batches):
                if i == len(micro_batches) - 1:
                    with ddp.no_sync():
                        ddp(batch).sum().backward()
                else:
                    ddp(batch).sum().backward()
        return len(calls)


def _check_allreduce_calls(allreduce_calls: Any) -> tuple:
    given = whole_number_of(allreduce_calls)
    if given is None:
        return incorrect(f"expected a whole number, got {allreduce_calls!r}")
    counted = _last_one_in_no_sync()
    if given == counted:
        return correct(
            f"{counted}: three of each step's four backwards run outside no_sync and all-reduce; the last one"
            " is kept local, so the step's optimizer would use a gradient whose last micro-batch was never"
            " averaged across processes."
        )
    if given == 2:
        return incorrect(
            "one all-reduce a step is what no_sync around the first micro-batches gives; here it"
            " wraps a different one"
        )
    if given == 8:
        return incorrect("no_sync does suppress the all-reduce of the backward it wraps")
    if given == 0:
        return incorrect("only the backward inside no_sync stays local; the others are plain DDP backwards")
    return incorrect(f"you said {given}; count, step by step, the backwards that run outside no_sync")


def _toy_model() -> Any:
    import torch
    from torch import nn

    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 2))


def _reference_after(steps: int, inputs: Any, targets: Any) -> list:
    """Parameters of the plain model after `steps` SGD steps on the whole batch's mean squared error."""
    import torch
    from torch import nn

    model = _toy_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        optimizer.zero_grad()
        nn.functional.mse_loss(model(inputs), targets).backward()
        optimizer.step()
    return [p.detach().clone() for p in model.parameters()]


def _run_train_step(train_step: Callable, steps: int, inputs: Any, targets: Any) -> tuple[list, int]:
    """The learner's train_step, `steps` times on micro-batches of 5, 5 and 2: (parameters, all-reduces)."""
    import torch

    with _process_group():
        ddp, calls = _counted_ddp(_toy_model())
        optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
        micro_batches = list(zip(inputs.split([5, 5, 2]), targets.split([5, 5, 2])))
        for _ in range(steps):
            train_step(ddp, optimizer, micro_batches)
        return [p.detach().clone() for p in ddp.module.parameters()], len(calls)


def _check_train_step(train_step: Any) -> tuple:
    import torch

    if not callable(train_step):
        return incorrect(f"expected a function train_step(ddp, optimizer, micro_batches), got {train_step!r}")
    gen = torch.Generator().manual_seed(1)
    inputs, targets = torch.randn(12, 5, generator=gen), torch.randn(12, 2, generator=gen)
    params, calls = _run_train_step(train_step, 2, inputs, targets)
    if calls == 0:
        return incorrect(
            "no backward all-reduced at all: with several processes, each would step on its own"
            " gradient and the replicas would drift apart"
        )
    if calls != 2:
        return incorrect(
            f"{calls} all-reduces in two steps of three micro-batches; the point of accumulating"
            " under DDP is one a step"
        )
    reference = _reference_after(2, inputs, targets)
    if all(torch.equal(a, b) for a, b in zip(params, _toy_model().parameters())):
        return incorrect("one all-reduce a step, but the parameters never moved: the function makes the step")
    if not all(torch.allclose(a, b, atol=1e-6) for a, b in zip(params, reference)):
        return incorrect(
            "one all-reduce a step, but the parameters differ from two steps on the whole batch's"
            " mean loss: compare your gradient after one step with the whole batch's"
        )
    return correct(
        "one all-reduce a step, and the same parameters as training on the whole batch: every backward but"
        " the last ran (forward included) under no_sync, and each micro-batch's mean loss was weighted by its"
        " share of the samples, so the short last one counts for less."
    )


ACTIVITIES = (
    Activity(
        id="22.1",
        task="Predict how many all-reduces two steps make when no_sync wraps the last micro-batch instead of"
        " the first ones.",
        names=("allreduce_calls",),
        check=_check_allreduce_calls,
        hints=(
            "A backward all-reduces (one call per bucket, one bucket here) unless its forward and backward"
            " ran inside no_sync.",
            "Count the backwards outside no_sync in one step, then multiply by the steps.",
        ),
        solution="allreduce_calls = 6",
    ),
    Activity(
        id="22.2",
        task="Write train_step(ddp, optimizer, micro_batches): one optimizer step accumulated over"
        " micro-batches of unequal size, with a single all-reduce, equal to a step on the whole batch.",
        names=("train_step",),
        check=_check_train_step,
        hints=(
            "Zero the gradients first and step last; in between, every micro-batch but the last runs its"
            " forward and its backward inside ddp.no_sync().",
            "The whole batch's mean is a weighted mean of the micro-batches' means: weight each by its number"
            " of samples over the total. With a short last micro-batch, the weights are not all equal.",
        ),
        solution=(
            "def train_step(ddp, optimizer, micro_batches):\n"
            "    optimizer.zero_grad()\n"
            "    total = sum(len(x) for x, _ in micro_batches)\n"
            "    *first, last = micro_batches\n"
            "    with ddp.no_sync():\n"
            "        for x, y in first:\n"
            "            (nn.functional.mse_loss(ddp(x), y) * len(x) / total).backward()\n"
            "    x, y = last\n"
            "    (nn.functional.mse_loss(ddp(x), y) * len(x) / total).backward()\n"
            "    optimizer.step()"
        ),
    ),
)
