"""The common loops: vision, sequences, fine-tuning, distillation, accumulation, clipping, buffers."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from healthy.loop import Healthy, Loop, data, evaluate, plain


def _classes(seed: int, n: int, d: int, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs and labels a linear rule makes: learnable in a few steps."""
    x = data(seed, n, d)
    return x, (x @ data(seed + 1, d, k)).argmax(1)


def cnn_batchnorm_dropout() -> Loop:
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Dropout(0.1),
        nn.Flatten(), nn.Linear(4 * 6 * 6, 3),
    )  # fmt: skip
    x, y = _classes(1, 32, 36, 3)
    x = x.view(32, 1, 6, 6)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    step = plain(optimizer, lambda: F.cross_entropy(model(x), y))
    return Loop(step, model, optimizer, lambda: evaluate(model, lambda: F.cross_entropy(model(x), y)))


class TinyLM(nn.Module):
    """A one-layer transformer language model whose output layer is tied to its embedding."""

    def __init__(self, vocab: int = 11, d: int = 16) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(8, d))
        layer = nn.TransformerEncoderLayer(d, 2, 32, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, tokens: torch.Tensor, positional_mask: bool = False) -> torch.Tensor:
        n = tokens.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(n)  # float: -inf above the diagonal
        h = self.embed(tokens) + self.pos[:n]
        h = self.encoder(h, mask) if positional_mask else self.encoder(h, mask=mask, is_causal=True)
        return self.head(h)


def _lm(positional_mask: bool) -> Loop:
    torch.manual_seed(0)
    model = TinyLM()
    tokens = (torch.arange(8).repeat(16, 1) + torch.arange(16)[:, None]) % 11  # counting: predictable

    def loss() -> torch.Tensor:
        logits = model(tokens[:, :-1], positional_mask)
        return F.cross_entropy(logits.reshape(-1, 11), tokens[:, 1:].reshape(-1))

    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    return Loop(plain(optimizer, loss), model, optimizer, lambda: evaluate(model, loss))


def transformer_lm_tied() -> Loop:
    return _lm(positional_mask=False)


def transformer_causal_mask_positional() -> Loop:
    return _lm(positional_mask=True)


class Recurrent(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(3, 8, batch_first=True)
        self.out = nn.Linear(8, 1)

    def forward(self, x: torch.Tensor, state: tuple | None = None) -> tuple[torch.Tensor, tuple]:
        h, state = self.lstm(x, state)
        return self.out(h), state


def _wave(seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    x = data(seed, 4, 12, 3)
    return x, x.cumsum(1)[..., :1] * 0.1


def lstm() -> Loop:
    torch.manual_seed(0)
    model = Recurrent()
    x, y = _wave(2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss = lambda: F.mse_loss(model(x)[0], y)  # noqa: E731
    return Loop(plain(optimizer, loss), model, optimizer, lambda: evaluate(model, loss))


def truncated_bptt() -> Loop:
    """The hidden state is carried from chunk to chunk, detached: backward stops at the chunk."""
    torch.manual_seed(0)
    model = Recurrent()
    x, y = _wave(3)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    carried: dict[str, tuple | None] = {"state": None, "chunk": 0}

    def step() -> torch.Tensor:
        i = carried["chunk"]
        out, state = model(x[:, i * 4 : i * 4 + 4], carried["state"])
        carried["state"] = tuple(s.detach() for s in state)
        carried["chunk"] = (i + 1) % 3
        if carried["chunk"] == 0:
            carried["state"] = None
        optimizer.zero_grad()
        loss = F.mse_loss(out, y[:, i * 4 : i * 4 + 4])
        loss.backward()
        optimizer.step()
        return loss.detach()

    return Loop(
        step,
        model,
        optimizer,
        lambda: evaluate(model, lambda: F.mse_loss(model(x)[0], y)),
        counters=[carried],
    )


def frozen_backbone() -> Loop:
    """Fine-tuning: the backbone is frozen on purpose and declared with frozen=."""
    torch.manual_seed(0)
    model = nn.Sequential()
    model.add_module("backbone", nn.Sequential(nn.Linear(6, 16), nn.ReLU()))
    model.add_module("head", nn.Linear(16, 3))
    model.backbone.requires_grad_(False)
    x, y = _classes(4, 48, 6, 3)
    optimizer = torch.optim.Adam(model.head.parameters(), lr=3e-2)
    loss = lambda: F.cross_entropy(model(x), y)  # noqa: E731
    return Loop(
        plain(optimizer, loss), model, optimizer, lambda: evaluate(model, loss), {"frozen": ["backbone"]}
    )


def distillation() -> Loop:
    """A frozen teacher outside the model, run under no_grad, teaches the student."""
    torch.manual_seed(0)
    teacher = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 3)).requires_grad_(False).eval()
    student = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
    x = data(5, 64, 6)
    optimizer = torch.optim.Adam(student.parameters(), lr=1e-2)

    def loss() -> torch.Tensor:
        with torch.no_grad():
            soft = F.softmax(teacher(x) / 2.0, dim=1)
        return F.kl_div(F.log_softmax(student(x) / 2.0, dim=1), soft, reduction="batchmean")

    return Loop(
        plain(optimizer, loss),
        student,
        optimizer,
        lambda: evaluate(student, loss),
    )


def gradient_accumulation() -> Loop:
    """Four micro-batches, one optimizer step: zero_grad once per step, before the first."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
    x, y = _classes(6, 64, 6, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.2)

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        total = torch.zeros(())
        for xb, yb in zip(x.chunk(4), y.chunk(4)):
            loss = F.cross_entropy(model(xb), yb) / 4
            loss.backward()
            total += loss.detach()
        optimizer.step()
        return total

    return Loop(step, model, optimizer, lambda: evaluate(model, lambda: F.cross_entropy(model(x), y)))


def clipping() -> Loop:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
    x = data(7, 32, 6)
    y = x.sum(1, keepdim=True) * 3
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02)

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        return loss.detach()

    return Loop(step, model, optimizer, lambda: evaluate(model, lambda: F.mse_loss(model(x), y)))


def epoch_stepped(model: nn.Module, x, y, optimizer, scheduler, batch: dict[str, int]) -> Loop:
    """Four batches of 16 an epoch; the schedule steps once an epoch, when batch["i"] wraps to 0."""

    def step() -> torch.Tensor:
        i = batch["i"]
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x[i * 16 : i * 16 + 16]), y[i * 16 : i * 16 + 16])
        loss.backward()
        optimizer.step()
        batch["i"] = (i + 1) % 4
        if batch["i"] == 0:
            scheduler.step()
        return loss.detach()

    metric = lambda: evaluate(model, lambda: F.cross_entropy(model(x), y))  # noqa: E731
    return Loop(step, model, optimizer, metric, counters=[batch], schedulers=[scheduler])


def per_epoch_schedule() -> Loop:
    """StepLR stepped once an epoch (every 4 batches), inside the step."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    x, y = _classes(8, 64, 6, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
    return epoch_stepped(model, x, y, optimizer, scheduler, {"i": 0})


class Standardised(nn.Module):
    """Inputs standardised by a running mean and variance kept in buffers."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("mean", torch.zeros(6))
        self.register_buffer("var", torch.ones(6))
        self.register_buffer("seen", torch.zeros((), dtype=torch.long))
        self.net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.training:
            with torch.no_grad():
                self.mean.lerp_(x.mean(0), 0.1)
                self.var.lerp_(x.var(0), 0.1)
                self.seen += 1
        return self.net((x - self.mean) / (self.var + 1e-5).sqrt())


def buffers() -> Loop:
    torch.manual_seed(0)
    model = Standardised()
    x, y = _classes(9, 64, 6, 3)
    x = x * 5 + 3
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss = lambda: F.cross_entropy(model(x), y)  # noqa: E731
    return Loop(plain(optimizer, loss), model, optimizer, lambda: evaluate(model, loss))


class Bag(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(20, 8, max_norm=1.0)
        self.out = nn.Linear(8, 2)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.out(self.embed(tokens).mean(1))


def embedding_max_norm() -> Loop:
    """Embedding(max_norm=...) renormalises the rows it looks up, in place, during the forward pass."""
    torch.manual_seed(0)
    model = Bag()
    with torch.no_grad():
        model.embed.weight.mul_(3)  # rows longer than max_norm: the forward renormalises them
    tokens = torch.randint(0, 20, (32, 5), generator=torch.Generator().manual_seed(10))
    y = (tokens < 10).sum(1).gt(2).long()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-2)
    loss = lambda: F.cross_entropy(model(tokens), y)  # noqa: E731
    return Loop(plain(optimizer, loss), model, optimizer, lambda: evaluate(model, loss))


class Hooked(nn.Module):
    """A forward hook that keeps a running statistic of activations, and a pre-hook that writes it."""

    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
        self.register_buffer("activity", torch.zeros(16))
        self.net[1].register_forward_hook(self._keep)

    def _keep(self, module: nn.Module, args: tuple, output: torch.Tensor) -> None:
        with torch.no_grad():
            self.activity.mul_(0.9).add_(output.mean(0), alpha=0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def forward_hooks() -> Loop:
    torch.manual_seed(0)
    model = Hooked()
    x, y = _classes(11, 64, 6, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.3)
    loss = lambda: F.cross_entropy(model(x), y)  # noqa: E731
    return Loop(plain(optimizer, loss), model, optimizer, lambda: evaluate(model, loss))


LOOPS = (
    Healthy("cnn_batchnorm_dropout", cnn_batchnorm_dropout),
    Healthy("transformer_lm_tied", transformer_lm_tied),
    Healthy("transformer_causal_mask_positional", transformer_causal_mask_positional),
    Healthy("lstm", lstm),
    Healthy("truncated_bptt", truncated_bptt),
    Healthy("frozen_backbone", frozen_backbone),
    Healthy("distillation", distillation),
    Healthy("gradient_accumulation", gradient_accumulation),
    Healthy("clipping", clipping),
    Healthy("per_epoch_schedule", per_epoch_schedule),
    Healthy("buffers", buffers),
    Healthy("embedding_max_norm", embedding_max_norm),
    Healthy("forward_hooks", forward_hooks),
)
