"""Models behind wrappers: DistributedDataParallel (one process, gloo, on the CPU) and torch.compile."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable

import torch
import torch.distributed as dist
from torch import nn

from field_corpus.case import Case, Setup, plain_step, regression
from field_corpus.cases_graph import kv_cache_model
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


def _one_process_group() -> Callable[[], None]:
    """A gloo group of one process on a file store; returns what tears it down."""
    handle, path = tempfile.mkstemp(prefix="ddp-store-")
    os.close(handle)
    os.unlink(path)  # the file store creates it
    if not dist.is_initialized():
        dist.init_process_group("gloo", init_method=f"file://{path}", rank=0, world_size=1)

    def cleanup() -> None:
        dist.destroy_process_group()
        if os.path.exists(path):
            os.unlink(path)

    return cleanup


def ddp_unused_parameters() -> Setup:
    cleanup = _one_process_group()
    model = nn.parallel.DistributedDataParallel(_TwoHeads())
    x, y = regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return Setup(plain_step(model, optimizer, x, y), model, optimizer, cleanup=cleanup)


class _ToyModel(nn.Module):
    """pytorch/pytorch#112152: the DDP tutorial's ToyModel, whose forward uses net2 only."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.net1 = nn.Linear(10, 10)
        self.relu = nn.ReLU()
        self.net2 = nn.Linear(10, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net2(x)  # the tutorial's: self.net2(self.relu(self.net1(x)))


def ddp_forward_skips_a_module() -> Setup:
    cleanup = _one_process_group()
    model = nn.parallel.DistributedDataParallel(_ToyModel())
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(20, 10, generator=g), torch.randn(20, 5, generator=g)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001)
    return Setup(plain_step(model, optimizer, x, y), model, optimizer, cleanup=cleanup)


def ddp_parameter_replaced() -> Setup:
    # pytorch/pytorch#12603: the repro assigns a new weight to the conv after wrapping it in DDP.
    cleanup = _one_process_group()
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.Flatten(), nn.Linear(2 * 4 * 4, 1))
    model = nn.parallel.DistributedDataParallel(net)
    model.module[0].weight = nn.Parameter(torch.full((2, 1, 3, 3), 0.1))  # the fix: before DDP(...)
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(4, 1, 6, 6, generator=g), torch.randn(4, 1, generator=g)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
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


def compiled_kv_cache() -> Setup:
    # meta-llama/llama#304: the model under torch.compile, run forward and backward twice; the k/v
    # cache is written without torch.no_grad().
    model = kv_cache_model()
    compiled = torch.compile(model)  # diagnose runs it eagerly (set_stance "force_eager")
    g = torch.Generator().manual_seed(1)
    x, y = torch.randn(4, 6, 8, generator=g), torch.randn(4, 6, 1, generator=g)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    return Setup(plain_step(compiled, optimizer, x, y), compiled, optimizer)


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
    Case(
        "ddp_forward_skips_net1",
        "https://github.com/pytorch/pytorch/issues/112152",
        "the model declares net1 and net2 but its forward uses only net2 (not all declared modules are used)",
        Stage.GRAD_MISSING,
        ("module.net1.weight", "whether their module is used at all"),
        ddp_forward_skips_a_module,
    ),
    Case(
        "ddp_parameter_assigned_after_wrap",
        "https://github.com/pytorch/pytorch/issues/12603",
        "a new parameter is assigned after the DDP constructor, whose gradient hooks are on the old one",
        Stage.PARAMS_UNREGISTERED,
        ("module.0.weight", "replaced after DistributedDataParallel(...) wrapped the module"),
        ddp_parameter_replaced,
    ),
    Case(
        "compiled_llama_cache_twice",
        "https://github.com/meta-llama/llama/pull/304",
        "writing into cache_k and cache_v without torch.no_grad(): forward and backward twice fails",
        Stage.BACKWARD_FAILED,
        ("attention.cache_k", "torch.no_grad()", "force_eager"),
        compiled_kv_cache,
    ),
)
