"""Custom autograd Functions, module backward hooks and checkpointing, as people reported them."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.checkpoint import checkpoint

from field_corpus.case import Case, Setup, loss_step, plain_step, regression
from helpers import Stage


class Sign(torch.autograd.Function):
    """1zb/pytorch-image-comp-rnn#4: forward(ctx, input, is_training); backward returns one value."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, is_training: bool = True) -> torch.Tensor:
        return x.sign()

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        return grad_output  # the fix: return grad_output, None


class adder(torch.autograd.Function):
    """huawei-noah/AdderNet#21: the backward computes both gradients but returns only one."""

    @staticmethod
    def forward(ctx, w: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(w, x)
        return -(x.unsqueeze(1) - w.unsqueeze(0)).abs().sum(-1)

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        w, x = ctx.saved_tensors
        diff = x.unsqueeze(1) - w.unsqueeze(0)
        grad_w = (diff * grad_output.unsqueeze(-1)).sum(0)
        return grad_w  # the fix: return grad_w, grad_x


class EnforcePrior(torch.autograd.Function):
    """evanmy/sae#5: forward(ctx, x, prior) with one gradient returned."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, prior: torch.Tensor) -> torch.Tensor:
        return x * prior

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        return grad_output  # the fix: return grad_output, None


_OFFSETS = [(dy, dx) for dy in (0, 2, 4) for dx in (0, 2, 4)]


class AggregationRefpad(torch.autograd.Function):
    """hszhao/SAN#3: aggregation over a reflection-padded input, with a typo in the backward path."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        xp = F.pad(x, (2, 2, 2, 2), mode="reflect")
        ctx.save_for_backward(xp, weight)
        h, w = x.shape[-2:]
        return sum(weight[k] * xp[:, :, dy : dy + h, dx : dx + w] for k, (dy, dx) in enumerate(_OFFSETS))

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        xp, weight = ctx.saved_tensors
        h, w = grad_output.shape[-2:]
        grad_xp = torch.zeros_like(xp)
        for k, (dy, dx) in enumerate(_OFFSETS):
            grad_xp[:, :, dy : dy + h, dx : dx + w] += weight[k] * grad_output
        windows = [xp[:, :, dy : dy + h, dx : dx + w] for dy, dx in _OFFSETS]
        grad_weight = torch.stack([(grad_output * window).sum() for window in windows])
        return grad_xp[:, :, :, 2:-2], grad_weight  # crops the width only (and folds no reflection back)


def refpad_aggregation() -> Setup:
    torch.manual_seed(0)
    model = nn.ModuleDict({"conv": nn.Conv2d(3, 8, 1), "head": nn.Linear(8, 1)})
    model.aggregation = nn.Parameter(torch.full((9,), 1 / 9))
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(2, 3, 24, 44, generator=g), torch.randn(2, 1, generator=g)  # the thread's 24 x 44
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        h = AggregationRefpad.apply(model["conv"](x), model.aggregation)
        loss = ((model["head"](h.mean((2, 3))) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        return loss

    return Setup(step, model, optimizer)


def custom_function(which: str) -> Setup:
    torch.manual_seed(0)
    x, y = regression()
    if which == "sign":
        model = nn.Sequential(nn.Linear(4, 6), nn.Linear(6, 1))

        def forward() -> torch.Tensor:
            return model[1](Sign.apply(model[0](x), True))
    elif which == "adder":
        model = nn.ParameterDict(
            {"w": nn.Parameter(torch.randn(3, 4)), "head": nn.Parameter(torch.randn(3, 1))}
        )

        def forward() -> torch.Tensor:
            return adder.apply(model["w"], x) @ model["head"]
    else:
        model = nn.Sequential(nn.Linear(4, 1))
        prior = torch.full((16, 1), 0.5, requires_grad=True)

        def forward() -> torch.Tensor:
            return EnforcePrior.apply(model(x), prior)

    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    return Setup(loss_step(optimizer, lambda: ((forward() - y) ** 2).mean()), model, optimizer)


def hooked_before_inplace(which: str) -> Setup:
    # pytorch/pytorch#61519, f-dangel/singd#56, automl/NASLib#113: a full backward hook on a layer
    # whose output an in-place activation (ReLU(inplace=True)) overwrites.
    torch.manual_seed(0)
    x, y = torch.rand(2, 3, 5, 5), torch.rand(2, 1)
    if which == "conv":
        model = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(inplace=True)
        )
        hooked = model[2]
    else:
        model = nn.Sequential(nn.Conv2d(3, 1, 3), nn.ReLU(inplace=True))
        hooked = model[0]
    grads: list[torch.Tensor] = []
    hooked.register_full_backward_hook(lambda m, gi, go: grads.append(go[0]))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    return Setup(
        loss_step(optimizer, lambda: ((model(x).mean((1, 2, 3)).unsqueeze(1) - y) ** 2).mean()),
        model,
        optimizer,
    )


class _LoraBlock(nn.Module):
    """A frozen linear layer with a trainable low-rank adapter (LoRA)."""

    def __init__(self, d: int = 8, r: int = 2) -> None:
        super().__init__()
        self.base = nn.Linear(d, d)
        self.base.requires_grad_(False)
        self.lora_A = nn.Linear(d, r, bias=False)
        self.lora_B = nn.Linear(r, d, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.base(x) + self.lora_B(self.lora_A(x)))


class _LoraModel(nn.Module):
    """microsoft/LoRA#120, huggingface/transformers#26221: frozen embeddings, LoRA blocks under a
    reentrant gradient checkpoint."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.embed = nn.Embedding(10, 8)
        self.embed.requires_grad_(False)
        self.layers = nn.ModuleList(_LoraBlock() for _ in range(2))
        self.head = nn.Linear(8, 1)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        h = self.embed(ids)
        for layer in self.layers:
            h = checkpoint(layer, h, use_reentrant=True)  # the fix: use_reentrant=False
        return self.head(h).mean(1)


def lora_reentrant_checkpoint() -> Setup:
    model = _LoraModel()
    ids, y = torch.randint(0, 10, (4, 6), generator=torch.Generator().manual_seed(0)), torch.randn(4, 1)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    return Setup(
        plain_step(model, optimizer, ids, y),
        model,
        optimizer,
        {"frozen": ["embed", "layers.0.base", "layers.1.base"]},
    )


CASES = (
    Case(
        "sign_backward_count",
        "https://github.com/1zb/pytorch-image-comp-rnn/issues/4",
        "backward returns one gradient for a forward of two inputs; the fix is return grad_output, None",
        Stage.BACKWARD_FAILED,
        ("custom Function Sign", "returned 1 gradient(s); its forward took 2", "None"),
        lambda: custom_function("sign"),
    ),
    Case(
        "addernet_backward_count",
        "https://github.com/huawei-noah/AdderNet/issues/21",
        "the backward forgets to return the gradients of W and X (returns one of two)",
        Stage.BACKWARD_FAILED,
        ("custom Function adder", "returned 1 gradient(s); its forward took 2"),
        lambda: custom_function("adder"),
    ),
    Case(
        "sae_enforce_prior",
        "https://github.com/evanmy/sae/issues/5",
        "EnforcePrior's backward lacks the `, None` for its second input",
        Stage.BACKWARD_FAILED,
        ("custom Function EnforcePrior", "one gradient per input of forward"),
        lambda: custom_function("prior"),
    ),
    Case(
        "inplace_relu_backward_hook",
        "https://github.com/pytorch/pytorch/issues/61519",
        "an in-place ReLU is incompatible with a (full) backward hook",
        Stage.BACKWARD_FAILED,
        ("module '3' (ReLU(inplace=True))", "full backward hook: 2", "inplace=False"),
        lambda: hooked_before_inplace("conv"),
    ),
    Case(
        "singd_full_backward_hook",
        "https://github.com/f-dangel/singd/issues/56",
        "full_backward_hooks are incompatible with in-place activations",
        Stage.BACKWARD_FAILED,
        ("ReLU(inplace=True)", "register_full_backward_hook"),
        lambda: hooked_before_inplace("small"),
    ),
    Case(
        "naslib_inplace_relu",
        "https://github.com/automl/NASLib/issues/113",
        "in-place ReLU breaks register_full_backward_hook",
        Stage.BACKWARD_FAILED,
        ("module '1' (ReLU(inplace=True))", "inplace=False on '1'"),
        lambda: hooked_before_inplace("small"),
    ),
    Case(
        "lora_gradient_checkpoint",
        "https://github.com/microsoft/LoRA/issues/120",
        "with gradient checkpointing all LoRA gradients are None, so lora_A and B are not updated",
        Stage.GRAD_MISSING,
        (
            "layers.0.lora_A.weight",
            "torch.utils.checkpoint called in the model's forward",
            "use_reentrant=False",
        ),
        lora_reentrant_checkpoint,
    ),
    Case(
        "transformers_reentrant_lora",
        "https://github.com/huggingface/transformers/issues/26221",
        "use_reentrant=True needs an input that requires grad, else the checkpointed part gets no gradients",
        Stage.GRAD_MISSING,
        ("a reentrant checkpoint runs its function under no_grad", "use_reentrant=False"),
        lora_reentrant_checkpoint,
    ),
    Case(
        "san_refpad_backward_shape",
        "https://github.com/hszhao/SAN/issues/3",
        "four typos in the backward path (the gradient it returns for the input has the wrong shape)",
        Stage.BACKWARD_FAILED,
        ("custom Function AggregationRefpad", "index 0", "[2, 8, 28, 44]", "[2, 8, 24, 44]"),
        refpad_aggregation,
    ),
)
