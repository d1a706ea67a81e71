"""Where the trained state lives: one module under several names, a layer the loss uses that no
optimizer holds, learned values kept in buffers, an Embedding(max_norm) that rewrites its weight in
place, and half-precision parameters that Adam's update makes non-finite."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from field_corpus.case import Case, Setup, loss_step
from helpers import Stage


class _Stack(nn.Module):
    """Levels built from a list multiplied by n: n names for one module."""

    def __init__(self, make: nn.Module, n: int, attribute: str) -> None:
        super().__init__()
        setattr(self, attribute, nn.ModuleList([make] * n))
        self.attribute = attribute

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in getattr(self, self.attribute):
            x = x + torch.relu(layer(x))
        return x


def list_times_n(attribute: str, conv: bool) -> Setup:
    # acids-ircam/ddsp_pytorch#37 ([mlp] * 2 for pitch and loudness), zalandoresearch/pytorch-vq-vae#2
    # ([Residual(...)] * num_residual_layers), yaoppeng/U-Net_v2#10 ([nn.Conv2d(...)] * 4): the list
    # holds one module n times, so every level shares one set of weights.
    torch.manual_seed(0)
    layer = nn.Conv2d(3, 3, 3, padding=1) if conv else nn.Linear(4, 4)
    model = _Stack(layer, 4 if conv else 2, attribute)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(8)
    shape = (2, 3, 6, 6) if conv else (8, 4)
    x, y = torch.randn(*shape, generator=g), torch.randn(*shape, generator=g)
    return Setup(loss_step(optimizer, lambda: F.mse_loss(model(x), y)), model, optimizer)


class _MotLoss(nn.Module):
    """FairMOT's loss module: it holds the identity classifier that turns embeddings into logits."""

    def __init__(self, emb_dim: int, n_ids: int) -> None:
        super().__init__()
        self.classifier = nn.Linear(emb_dim, n_ids)

    def forward(self, embedding: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self.classifier(F.normalize(embedding)), ids)


def classifier_in_the_loss_module(sgd: bool = False) -> Setup:
    # ifzhang/FairMOT#125: self.classifier = nn.Linear(emb_dim, nID) lives in the loss module and the
    # optimizer is built from model.parameters() only: the classifier is never optimized.
    # ifzhang/FairMOT#229: the same optimizer written as SGD (momentum, Nesterov, weight decay in a
    # parameter group): id_loss stays where it started; the id classifier is not in the optimizer.
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 8))
    loss_module = _MotLoss(8, 5)
    optimizer = (
        torch.optim.SGD(
            [{"params": model.parameters(), "weight_decay": 5e-4}], lr=1e-2, momentum=0.9, nesterov=True
        )
        if sgd
        else torch.optim.Adam(model.parameters(), lr=1e-4)
    )
    g = torch.Generator().manual_seed(9)
    x, ids = torch.randn(10, 6, generator=g), torch.randint(0, 5, (10,), generator=g)
    return Setup(loss_step(optimizer, lambda: loss_module(model(x), ids)), model, optimizer)


class _Scorer(nn.Module):
    """pytorch/pytorch#26596's two uses of the embedding, in a module."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.emb = nn.Embedding(3, 5, max_norm=True)
        self.W = nn.Parameter(torch.randn(7, 5))

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        a = self.emb.weight @ self.W.t()  # Line a
        b = self.emb(idx) @ self.W.t()  # Line b
        return a.unsqueeze(0) + b.unsqueeze(1)


def embedding_max_norm_after_weight_use() -> Setup:
    # pytorch/pytorch#26596: the embedding's weight is used directly, then the embedding is called with
    # max_norm set; its forward renormalises rows of the weight in place, which backward needed.
    model = _Scorer()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    idx = torch.tensor([1, 2])
    return Setup(loss_step(optimizer, lambda: model(idx).sigmoid().prod()), model, optimizer)


def half_soft_prompt_adam() -> Setup:
    # matanbt/TROPT#8: the optimized soft prompt inherits the model's float16, Adam keeps its state in
    # float16 and eps=1e-8 flushes to 0: the first step divides by sqrt(0) + 0 and the prompt is Inf.
    torch.manual_seed(0)
    encoder = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4)).half()
    encoder.requires_grad_(False)
    model = nn.Module()
    model.prompt = nn.Parameter(torch.randn(2, 4).half() * 1e-3)
    model.encoder = encoder
    optimizer = torch.optim.Adam([model.prompt], lr=1e-2)
    goal = torch.randn(2, 4).half()

    def loss() -> torch.Tensor:
        return (encoder(model.prompt).float() - goal.float()).pow(2).mean() * 1e-6

    return Setup(loss_step(optimizer, loss), model, optimizer, {"frozen": ["encoder"]})


def half_model_adam() -> Setup:
    # jinxixiang/magic_animate_unofficial#6: the whole model is float16 and trained with Adam at its
    # default eps (1e-8): the loss becomes NaN after optimizer.step(); float32 fixes it.
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)).half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(10)
    x, y = torch.randn(16, 4, generator=g).half(), torch.randn(16, 1, generator=g).half()
    x[:, 3] = 0  # a feature that is zero in this batch: its weights get an exactly zero gradient
    return Setup(loss_step(optimizer, lambda: F.mse_loss(model(x), y)), model, optimizer)


class _SlotAttention(nn.Module):
    """Slot attention whose slot initialisation (a mean and a log-sigma) was registered as buffers."""

    def __init__(self, dim: int = 8, slots: int = 3) -> None:
        super().__init__()
        self.slots, self.dim = slots, dim
        self.norm_inputs = nn.LayerNorm(dim)
        self.project_q = nn.Linear(dim, dim, bias=False)
        self.project_k = nn.Linear(dim, dim, bias=False)
        self.project_v = nn.Linear(dim, dim, bias=False)
        self.update = nn.Linear(dim, dim)
        gain = nn.init.calculate_gain("linear")
        self.register_buffer("slots_mu", nn.init.xavier_uniform_(torch.zeros(1, 1, dim), gain=gain))
        self.register_buffer("slots_log_sigma", nn.init.xavier_uniform_(torch.zeros(1, 1, dim), gain=gain))

    def forward(self, inputs: torch.Tensor, noise: torch.Tensor) -> torch.Tensor:
        inputs = self.norm_inputs(inputs)
        k, v = self.project_k(inputs), self.project_v(inputs)
        slots = self.slots_mu + self.slots_log_sigma.exp() * noise
        for _ in range(2):
            attn = F.softmax(self.project_q(slots) @ k.transpose(1, 2) * self.dim**-0.5, dim=1)
            attn = attn / attn.sum(dim=-1, keepdim=True)
            slots = slots + self.update(attn @ v)
        return slots


def slot_init_in_buffers() -> Setup:
    # imbue-ai/slot_attention#8: slots_mu and slots_log_sigma are made with register_buffer and used
    # as mu + exp(log_sigma) * noise; the paper (and the other implementations) learn them, and the
    # reporter's checkpoints show them unchanged through training.
    torch.manual_seed(0)
    model = _SlotAttention()
    optimizer = torch.optim.Adam(model.parameters(), lr=4e-4)
    g = torch.Generator().manual_seed(9)
    inputs, noise = torch.randn(2, 10, 8, generator=g), torch.randn(2, 3, 8, generator=g)
    target = torch.randn(2, 3, 8, generator=g)
    return Setup(loss_step(optimizer, lambda: F.mse_loss(model(inputs, noise), target)), model, optimizer)


_OPTIMIZER_WROTE = ("optimizer.step() wrote", "eps=1e-08 is 0 in torch.float16")

CASES: tuple[Case, ...] = (
    Case(
        "ddsp_mlps_share_weights",
        "https://github.com/acids-ircam/ddsp_pytorch/issues/37",
        "[mlp] * 2: in_mlps[0] is in_mlps[1], so pitch and loudness share one MLP's weights",
        Stage.PARAMS_UNREGISTERED,
        ("in_mlps.0", "in_mlps.1", "same module"),
        lambda: list_times_n("in_mlps", conv=False),
        first_run="OK",
    ),
    Case(
        "vq_vae_residual_stack_shared",
        "https://github.com/zalandoresearch/pytorch-vq-vae/issues/2",
        "nn.ModuleList([Residual(...)] * n) duplicates a reference to a single Residual instance",
        Stage.PARAMS_UNREGISTERED,
        ("_layers.0", "_layers.1", "same module"),
        lambda: list_times_n("_layers", conv=False),
        first_run="OK",
    ),
    Case(
        "unet_v2_convs_times_four",
        "https://github.com/yaoppeng/U-Net_v2/issues/10",
        "[nn.Conv2d(...)] * 4 creates four references to the same Conv2d: one set of weights",
        Stage.PARAMS_UNREGISTERED,
        ("convs.0", "convs.3", "same module"),
        lambda: list_times_n("convs", conv=True),
        first_run="OK",
    ),
    Case(
        "fairmot_classifier_not_optimized",
        "https://github.com/ifzhang/FairMOT/issues/125",
        "self.classifier = nn.Linear(emb_dim, nID) is not optimized: the optimizer does not hold it",
        Stage.NOT_IN_OPTIMIZER,
        ("Linear(in_features=8, out_features=5", "no optimizer holds"),
        classifier_in_the_loss_module,
        first_run="OK",
    ),
    Case(
        "fairmot_sgd_id_loss_stuck",
        "https://github.com/ifzhang/FairMOT/issues/229",
        "with SGD over model.parameters() id_loss stays at 8.5: the id classifier is not in the optimizer",
        Stage.NOT_IN_OPTIMIZER,
        ("Linear(in_features=8, out_features=5", "no optimizer holds"),
        lambda: classifier_in_the_loss_module(sgd=True),
        first_run="named",
    ),
    Case(
        "slot_attention_slot_init_buffers",
        "https://github.com/imbue-ai/slot_attention/issues/8",
        "slots_mu and slots_log_sigma are registered with register_buffer, so training never updates them",
        Stage.PARAMS_UNREGISTERED,
        ("slots_mu", "slots_log_sigma", "register_buffer"),
        slot_init_in_buffers,
        first_run="OK",
    ),
    Case(
        "pytorch_embedding_max_norm_inplace",
        "https://github.com/pytorch/pytorch/issues/26596",
        "Embedding with max_norm modifies its weight in place in forward; the earlier use of it needed it",
        Stage.BACKWARD_FAILED,
        ("'emb'", "max_norm"),
        embedding_max_norm_after_weight_use,
        first_run="in part",
    ),
    Case(
        "tropt_half_soft_prompt_adam",
        "https://github.com/matanbt/TROPT/pull/8",
        "Adam's state is float16 and eps=1e-8 flushes to zero: the first step makes the prompt Inf",
        Stage.FORWARD_NON_FINITE,
        _OPTIMIZER_WROTE,
        half_soft_prompt_adam,
        first_run="named",
    ),
    Case(
        "magic_animate_fp16_adam",
        "https://github.com/jinxixiang/magic_animate_unofficial/issues/6",
        "an FP16 model trained with Adam's eps of 1e-8, too small for fp16, gets a NaN loss",
        Stage.FORWARD_NON_FINITE,
        _OPTIMIZER_WROTE,
        half_model_adam,
        first_run="named",
    ),
)
