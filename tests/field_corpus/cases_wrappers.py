"""Models behind wrappers: DistributedDataParallel (one process, gloo, on the CPU) and torch.compile."""

from __future__ import annotations

import os
import tempfile

import torch
import torch.distributed as dist
from torch import nn

from field_corpus.case import Case, Setup, plain_step, regression
from helpers import Stage


class _TwoHeads(nn.Module):
    """ZhengYinan-AIR/Diffusion-Planner#65: a module whose parameters are not all used for the loss."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.encoder = nn.Linear(4, 8)
        self.plan_head = nn.Linear(8, 1)
        self.aux_head = nn.Linear(8, 1)  # computed by nothing that reaches the loss

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.plan_head(torch.relu(self.encoder(x)))


def ddp_unused_parameters() -> Setup:
    handle, path = tempfile.mkstemp(prefix="ddp-store-")
    os.close(handle)
    os.unlink(path)  # the file store creates it
    if not dist.is_initialized():
        dist.init_process_group("gloo", init_method=f"file://{path}", rank=0, world_size=1)
    model = nn.parallel.DistributedDataParallel(_TwoHeads())
    x, y = regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def cleanup() -> None:
        dist.destroy_process_group()
        if os.path.exists(path):
            os.unlink(path)

    return Setup(plain_step(model, optimizer, x, y), model, optimizer, cleanup=cleanup)


class _ReluTwice(nn.Module):
    """pytorch/pytorch#148835: relu, then relu_ on its result, in a model that is compiled."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.linear = nn.Linear(4, 10)
        self.head = nn.Linear(10, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = nn.functional.relu(self.linear(x))
        x = nn.functional.relu_(x)  # writes the output relu saved for its backward
        return self.head(x)


def compiled_relu_inplace() -> Setup:
    model = torch.compile(_ReluTwice())  # diagnose runs it eagerly (set_stance "force_eager")
    x, y = regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    return Setup(plain_step(model, optimizer, x, y), model, optimizer)


CASES = (
    Case(
        "ddp_unused_parameters",
        "https://github.com/ZhengYinan-AIR/Diffusion-Planner/issues/65",
        "not all parameters are used for calculating the loss (DDP: find_unused_parameters)",
        Stage.GRAD_MISSING,
        ("module.aux_head.weight", "whether their module is used at all"),
        ddp_unused_parameters,
    ),
    Case(
        "compiled_relu_then_relu_",
        "https://github.com/pytorch/pytorch/issues/148835",
        "relu saves its result for backward; relu_() on that result mutates the saved tensor (eager fails)",
        Stage.BACKWARD_FAILED,
        ("output 0 of Relu", "in-place change", "force_eager"),
        compiled_relu_inplace,
    ),
)
