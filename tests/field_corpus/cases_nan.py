"""NaN that the data or an operation brings: masks that leave nothing, a batch of one, a sqrt at 0,
a mean over no targets, a flat image normalised, an exp that overflows between modules, and NaN
gradients a loss makes outside the model (targets masked after it, a distance of 0), as people
reported them."""

from __future__ import annotations

import math
from collections import OrderedDict

import torch
import torch.nn.functional as F
from torch import nn

from field_corpus.case import Case, Setup, loss_step
from helpers import Stage


class _MultiHeadAttention(nn.Module):
    """THUwangcy/ReChorus#8, src/utils/layers.py: scores.masked_fill_(mask == 0, -inf), then softmax;
    a query whose keys are all masked gets softmax([-inf, ..., -inf]) = 0/0 = NaN."""

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        self.h, self.d_k = n_heads, d_model // n_heads
        self.v_linear = nn.Linear(d_model, d_model)
        self.k_linear = nn.Linear(d_model, d_model)
        self.q_linear = nn.Linear(d_model, d_model)

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        bs = q.size(0)
        k = self.k_linear(k).view(bs, -1, self.h, self.d_k).transpose(1, 2)
        q = self.q_linear(q).view(bs, -1, self.h, self.d_k).transpose(1, 2)
        v = self.v_linear(v).view(bs, -1, self.h, self.d_k).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-2, -1)) / self.d_k**0.5
        scores.masked_fill_(mask == 0, -math.inf)  # the fix: scores.masked_fill(torch.isnan(scores), 0) after
        scores = (scores - scores.max()).softmax(dim=-1)
        return torch.matmul(scores, v).transpose(1, 2).reshape(bs, -1, self.h * self.d_k)


class _TransformerLayer(nn.Module):
    def __init__(self, d_model: int = 8, n_heads: int = 2) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.masked_attn_head = _MultiHeadAttention(d_model, n_heads)
        self.layer_norm1 = nn.LayerNorm(d_model)
        self.linear1 = nn.Linear(d_model, 2 * d_model)
        self.linear2 = nn.Linear(2 * d_model, d_model)
        self.layer_norm2 = nn.LayerNorm(d_model)

    def forward(self, seq: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        context = self.layer_norm1(self.masked_attn_head(seq, seq, seq, mask) + seq)
        return self.layer_norm2(self.linear2(self.linear1(context).relu()) + context)


def all_masked_attention() -> Setup:
    # A left-padded history under a causal mask: the first query may see only the padding.
    layer = _TransformerLayer()
    seq = torch.randn(1, 4, 8, generator=torch.Generator().manual_seed(1))
    valid = torch.tensor([0, 1, 1, 1])  # position 0 is padding
    mask = torch.tril(torch.ones(4, 4)) * valid.view(1, 4)  # query i sees the valid keys j <= i
    return Setup(lambda: layer(seq, mask.view(1, 1, 4, 4)), layer)


def _masked_log_softmax(vector: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """allenai/allennlp#890: allennlp.nn.util.masked_log_softmax as the thread quotes it."""
    return F.log_softmax(vector + mask.log(), dim=1)  # a row of mask 0s: log 0 = -inf everywhere


class _SpanStart(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.predictor = nn.Linear(d, 1)

    def forward(self, encoded: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return _masked_log_softmax(self.predictor(encoded).squeeze(-1), mask)


class _Reader(nn.Module):
    def __init__(self, d: int = 4) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.encoder = nn.Linear(d, d)
        self.span_start = _SpanStart(d)

    def forward(self, passage: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.span_start(self.encoder(passage).relu(), mask)


def masked_log_softmax_empty_row() -> Setup:
    reader = _Reader()
    passage = torch.randn(2, 6, 4, generator=torch.Generator().manual_seed(1))
    mask = torch.stack([torch.ones(6), torch.zeros(6)])  # the thread's mask: a row of 1s, a row of 0s
    return Setup(lambda: reader(passage, mask), reader)


class _BatchNorm1d(nn.Module):
    """karpathy/makemore#22: the makemore lectures' BatchNorm1d; x.var(0) of one sample is NaN."""

    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.gamma = nn.Parameter(torch.ones(dim))
        self.beta = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xmean = x.mean(0, keepdim=True)
        xvar = x.var(0, keepdim=True)  # unbiased: 0/0 for a batch of one sample
        return self.gamma * (x - xmean) / torch.sqrt(xvar + self.eps) + self.beta


def batchnorm_batch_of_one() -> Setup:
    torch.manual_seed(0)
    model = nn.Sequential(
        OrderedDict(fc=nn.Linear(6, 8, bias=False), bn=_BatchNorm1d(8), tanh=nn.Tanh(), out=nn.Linear(8, 5))
    )
    last_batch = torch.randn(1, 6, generator=torch.Generator().manual_seed(1))  # the epoch's last batch
    return Setup(lambda: model(last_batch), model)


class _PerFrameDistortion(nn.Module):
    """asteroid-team/asteroid#90, asteroid/losses/pmsqe.py: per frame, sqrt(sum((sym_d * w) ** 2));
    sym_d is center-clipped to 0 on a frame both spectra agree on (silence), and sqrt's derivative
    at 0 is Inf, which PowBackward0 multiplies by 2 * sym_d = 0: NaN."""

    def __init__(self, bins: int) -> None:
        super().__init__()
        self.register_buffer("width_of_band_bark", torch.linspace(0.5, 1.5, bins))

    def forward(self, est: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
        r = torch.abs(est - ref)
        sym_d = torch.max(r - 0.25 * torch.min(est, ref), torch.zeros_like(r))
        d_frame = torch.sum(torch.pow(sym_d * self.width_of_band_bark, 2.0), dim=-1)
        return torch.sqrt(d_frame).mean()  # the fix: torch.sqrt(d_frame + EPS)


class _System(nn.Module):
    """Asteroid's System holds the model and the loss function (both modules)."""

    def __init__(self, bins: int = 6) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.masker = nn.Linear(bins, bins)
        self.loss_func = _PerFrameDistortion(bins)

    def forward(self, mix: torch.Tensor) -> torch.Tensor:
        return mix * torch.sigmoid(self.masker(mix))  # a mask on the mixture's magnitude spectrum


def pmsqe_sqrt_of_silence() -> Setup:
    system = _System()
    g = torch.Generator().manual_seed(1)
    mix = torch.rand(2, 5, 6, generator=g) + 0.5
    mix[:, 0] = 0.0  # the utterances start with a silent frame
    ref = mix * torch.rand(2, 5, 6, generator=g)
    optimizer = torch.optim.Adam(system.parameters(), lr=1e-3)

    return Setup(loss_step(optimizer, lambda: system.loss_func(system(mix), ref)), system, optimizer)


def cross_entropy_all_ignored() -> Setup:
    # pytorch/pytorch#116349: CrossEntropyLoss(reduction='mean') over labels that are all
    # ignore_index (-100) is the mean of no terms, 0/0 = NaN.
    torch.manual_seed(42)
    lm_head = nn.Linear(8, 10)
    hidden = torch.randn(1, 5, 8)
    labels = torch.tensor([[-100, -100, -100, -100, -100]])  # e.g. a sample whose tokens are all prompt
    optimizer = torch.optim.AdamW(lm_head.parameters(), lr=1e-3)
    loss_fct = nn.CrossEntropyLoss(reduction="mean")

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        logits = lm_head(hidden)
        loss = loss_fct(logits.view(-1, logits.size(-1)), labels.view(-1))
        loss.backward()
        optimizer.step()
        return loss

    return Setup(step, lm_head, optimizer)


class _GatedConv(nn.Module):
    """A gated convolution: features * sigmoid(gate), from one convolution split in two."""

    def __init__(self, cin: int, cout: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(cin, 2 * cout, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features, gate = self.conv(x).chunk(2, dim=1)
        return F.elu(features) * torch.sigmoid(gate)


def constant_image_normalised() -> Setup:
    # avalonstrel/GatedConvolution_pytorch#27: the input is (img - min) / (max - min) - 1, and an
    # image whose max equals its min is 0/0 = NaN before the model sees it.
    torch.manual_seed(0)
    model = nn.Sequential(OrderedDict(coarse=_GatedConv(3, 4), refine=_GatedConv(4, 3)))
    g = torch.Generator().manual_seed(1)
    images = torch.rand(2, 3, 8, 8, generator=g)
    images[1] = 0.5  # a flat image: max == min
    lo = images.amin(dim=(1, 2, 3), keepdim=True)
    hi = images.amax(dim=(1, 2, 3), keepdim=True)
    x = (images - lo) / (hi - lo) - 1  # the fix: skip flat images, or divide by (hi - lo).clamp_min(eps)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)

    return Setup(loss_step(optimizer, lambda: F.l1_loss(model(x), images)), model, optimizer)


class _InnerProductDecoder(nn.Module):
    def forward(self, z: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid((z[edge_index[0]] * z[edge_index[1]]).sum(dim=1))


class _Encoder(nn.Module):
    def __init__(self, d: int, latent: int) -> None:
        super().__init__()
        self.hidden = nn.Linear(d, 8)
        self.mu = nn.Linear(8, latent)
        self.logvar = nn.Linear(8, latent)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.hidden(x).relu()
        return self.mu(h), self.logvar(h)


class _VGAE(nn.Module):
    """pyg-team/pytorch_geometric#500, torch_geometric/nn/models/autoencoder.py as the thread quotes
    it: mu + randn_like(logvar) * exp(logvar), with logvar not controlled; exp overflows to Inf."""

    def __init__(self, d: int = 4, latent: int = 2) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.encoder = _Encoder(d, latent)
        self.decoder = _InnerProductDecoder()

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        mu, logvar = self.encoder(x)  # the fix: logvar.clamp(max=...) before the exp
        return mu + torch.randn_like(logvar) * torch.exp(logvar)

    def recon_loss(self, z: torch.Tensor, pos: torch.Tensor, neg: torch.Tensor) -> torch.Tensor:
        eps = 1e-15
        return (
            -torch.log(self.decoder(z, pos) + eps).mean() - torch.log(1 - self.decoder(z, neg) + eps).mean()
        )


def vgae_logvar_exp_overflow() -> Setup:
    model = _VGAE()
    with torch.no_grad():
        model.encoder.logvar.bias.fill_(100.0)  # logvar grown large during training: exp(100) > float32's max
    x = torch.randn(5, 4, generator=torch.Generator().manual_seed(1))
    pos, neg = torch.tensor([[0, 1, 2], [1, 2, 3]]), torch.tensor([[0, 1, 3], [4, 4, 0]])
    torch.manual_seed(2)
    return Setup(lambda: model.recon_loss(model.encode(x), pos, neg), model)


def nan_targets_masked_after_loss() -> Setup:
    # pytorch/pytorch#64305: missing targets are NaN; masking the loss after computing it keeps the
    # loss finite, but square's backward multiplies 2 * (y_pred - NaN) by the mask's 0: NaN.
    torch.manual_seed(0)
    m = nn.Linear(1, 2, bias=False)
    x = torch.tensor([[0.0]])
    y = torch.tensor([[float("nan"), 0.0]])
    y_mask = ~torch.isnan(y)
    optimizer = torch.optim.SGD(m.parameters(), lr=0.1)
    # the fix: mask first, loss_fn(y_pred[y_mask], y[y_mask])
    return Setup(loss_step(optimizer, lambda: torch.square(m(x) - y)[y_mask].sum()), m, optimizer)


class _EmbeddingNet(nn.Module):
    """adambielski/siamese-triplet's EmbeddingNet, smaller: a convolution, then fully connected layers."""

    def __init__(self) -> None:
        super().__init__()
        self.convnet = nn.Sequential(nn.Conv2d(1, 4, 3), nn.PReLU(), nn.MaxPool2d(2))
        self.fc = nn.Sequential(nn.Linear(4 * 3 * 3, 16), nn.PReLU(), nn.Linear(16, 2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.convnet(x).flatten(1))


class _SiameseNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.embedding_net = _EmbeddingNet()

    def forward(self, x1: torch.Tensor, x2: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.embedding_net(x1), self.embedding_net(x2)


def contrastive_loss_identical_pair() -> Setup:
    # adambielski/siamese-triplet#18: ContrastiveLoss takes sqrt of the squared distance; a pair of two
    # exactly the same samples has distance 0, and sqrt's derivative there makes the gradient NaN.
    model = _SiameseNet()
    g = torch.Generator().manual_seed(1)
    x1 = torch.randn(4, 1, 8, 8, generator=g)
    x2 = torch.randn(4, 1, 8, 8, generator=g)
    x2[2] = x1[2]  # the same sample on both sides of a pair
    target = torch.tensor([1, 0, 1, 0])  # 1: a similar pair, as the identical one is
    margin = 1.0
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        out1, out2 = model(x1, x2)
        distances = (out2 - out1).pow(2).sum(1)
        # the fix: (distances + eps).sqrt()
        losses = 0.5 * (target * distances + (1 - target) * F.relu(margin - distances.sqrt()).pow(2))
        loss = losses.mean()
        loss.backward()
        optimizer.step()
        return loss

    return Setup(step, model, optimizer)


CASES = (
    Case(
        "rechorus_all_masked_softmax",
        "https://github.com/THUwangcy/ReChorus/issues/8",
        "masked_fill with -np.inf gives NaN when every position of a query is masked (softmax of all -inf)",
        Stage.FORWARD_NON_FINITE,
        ("forward #1: output of 'masked_attn_head'",),
        all_masked_attention,
        tool="watch",
    ),
    Case(
        "allennlp_masked_log_softmax",
        "https://github.com/allenai/allennlp/issues/890",
        "masked_log_softmax adds mask.log(): a row whose mask is all 0 is log_softmax over -inf, NaN",
        Stage.FORWARD_NON_FINITE,
        ("forward #1: output of 'span_start'",),
        masked_log_softmax_empty_row,
        tool="watch",
    ),
    Case(
        "makemore_batchnorm_one_sample",
        "https://github.com/karpathy/makemore/issues/22",
        "batchnorm on a batch of a single sample during training sets the variance to NaN",
        Stage.FORWARD_NON_FINITE,
        ("forward #1: output of 'bn'",),
        batchnorm_batch_of_one,
        tool="watch",
    ),
    Case(
        "pmsqe_sqrt_zero_backward",
        "https://github.com/asteroid-team/asteroid/issues/90",
        "sqrt of zero values in the PMSQE loss: backward's PowBackward0 returned nan values; add an eps",
        Stage.GRAD_NON_FINITE,
        (
            "gradient holds NaN or Inf while the forward pass and loss are finite",
            "first non-finite backward tensor: backward #1: grad input[0] of 'loss_func'",
        ),
        pmsqe_sqrt_of_silence,
    ),
    Case(
        "cross_entropy_all_ignore_index",
        "https://github.com/pytorch/pytorch/issues/116349",
        "CrossEntropyLoss(reduction='mean') is NaN when every label is ignore_index: a mean over no elements",
        Stage.FORWARD_NON_FINITE,
        ("every module output is finite: the NaN/Inf appears after the model, in the loss",),
        cross_entropy_all_ignored,
    ),
    Case(
        "gated_conv_flat_image_input",
        "https://github.com/avalonstrel/GatedConvolution_pytorch/issues/27",
        "the net input is (img-min)/(max-min)-1 and some images have max = min, so the input is NaN",
        Stage.FORWARD_NON_FINITE,
        ("first non-finite forward tensor: forward #1: input[0] of the model",),
        constant_image_normalised,
    ),
    Case(
        "vgae_exp_logvar_overflow",
        "https://github.com/pyg-team/pytorch_geometric/issues/500",
        "the logvar is not controlled: not the encoder but the exp in reparametrize makes the NaN/Inf",
        Stage.FORWARD_NON_FINITE,
        ("forward #1: input[0] of 'decoder'",),
        vgae_logvar_exp_overflow,
        tool="watch",
    ),
    Case(
        "nan_targets_masked_after_loss",
        "https://github.com/pytorch/pytorch/issues/64305",
        "NaN targets masked out after the loss still put NaN into the gradient; mask before the loss",
        Stage.GRAD_NON_FINITE,
        (
            "first non-finite backward tensor: backward #1: grad output of the model",
            "it entered the model through the gradient of its output",
        ),
        nan_targets_masked_after_loss,
    ),
    Case(
        "contrastive_loss_sqrt_of_zero_distance",
        "https://github.com/adambielski/siamese-triplet/issues/18",
        "a distance of 0 (two exactly the same samples) makes sqrt's derivative, and the gradient, NaN",
        Stage.GRAD_NON_FINITE,
        (
            "first non-finite backward tensor: backward #1: grad output[",
            "it entered the model through the gradient of its output",
        ),
        contrastive_loss_identical_pair,
    ),
)
