"""Mixed and half precision, and NaN that the data brings, as people reported them."""

from __future__ import annotations

import torch
from torch import nn

from field_corpus.case import Case, Setup, loss_step, mlp, plain_step, regression
from helpers import Stage


def clip_before_unscale() -> Setup:
    # pytorch/pytorch#40907, milesial/Pytorch-UNet#468, rwth-i6/returnn#1590: clip_grad_norm_ on
    # the scaled gradients, then scaler.step() (a GradScaler and bfloat16 autocast on the CPU).
    model, (x, y) = mlp(), regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = ((model(x) - y) ** 2).mean()
        scaler.scale(loss).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 12)  # the fix: scaler.unscale_(optimizer) first
        scaler.step(optimizer)
        scaler.update()
        return loss

    return Setup(step, model, optimizer)


def pure_fp16_adam(eps: float = 1e-8) -> Setup:
    # pytorch/pytorch#147437, afiaka87/glide-finetune#5, pytorch/pytorch#8860: the model in float16
    # trained with Adam at its default eps; the parameters are NaN/Inf after the first step.
    model, (x, y) = mlp(), regression()
    model.half()
    x, y = x.half(), (y * 1e-3).half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=eps)

    return Setup(loss_step(optimizer, lambda: ((model(x) * 1e-3 - y) ** 2).mean()), model, optimizer)


class _Focal(nn.Module):
    """mathiaszinnen/focal_loss_torch#3: -(1 - p_t)**gamma * log(p_t), p_t from a softmax that reaches 0."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc = nn.Linear(4, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.fc(x) * 200.0, dim=1)


def focal_log_zero() -> Setup:
    model, (x, _) = _Focal(), regression()
    target = torch.arange(16) % 3
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        p_t = model(x).gather(1, target.unsqueeze(1))
        loss = (-((1 - p_t) ** 2) * torch.log(p_t)).mean()  # the fix: torch.log(p_t + eps)
        loss.backward()
        optimizer.step()
        return loss

    return Setup(step, model, optimizer)


class _SafeDiv(nn.Module):
    """pytorch/pytorch#52248: torch.where(b, a / 0, c) with b False: the unused branch's 0/0 is NaN."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = self.fc(x)
        t = torch.zeros_like(a)
        return torch.where(t > 0, a / t, torch.ones_like(a) + 0 * a)


def where_unused_branch() -> Setup:
    model, (x, y) = _SafeDiv(), regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    return Setup(plain_step(model, optimizer, x, y), model, optimizer)


class _AsymmetricLoss(nn.Module):
    """Alibaba-MIIL/ASL#6: log(sigmoid(x)) of a large negative logit is log(0) = -inf, then 0 * -inf."""

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        p = torch.sigmoid(logits)
        los_pos = target * torch.log(p)  # the fix: p.clamp(min=eps)
        los_neg = (1 - target) * torch.log(1 - p)
        return -(los_pos + los_neg).sum()


def asl_watch() -> Setup:
    loss_fn = _AsymmetricLoss()
    logits, target = torch.tensor([[-200.0]]), torch.tensor([[0.0]])
    return Setup(lambda: loss_fn(logits, target), loss_fn)


class _ConvBN(nn.Module):
    """plemeri/InSPyReNet lib/modules/layers.py's Conv2d: a convolution and a BatchNorm2d."""

    def __init__(self, cin: int, cout: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 1, bias=False)
        nn.init.kaiming_normal_(self.conv.weight)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.bn(self.conv(x))


class _SelfAttention(nn.Module):
    """plemeri/InSPyReNet#36: query and key are not normalized, and in float16 the bmm of the two
    overflows to Inf; the softmax of a row holding Inf is NaN."""

    def __init__(self, in_channels: int) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.query_conv = _ConvBN(in_channels, in_channels // 8)
        self.key_conv = _ConvBN(in_channels, in_channels // 8)
        self.value_conv = _ConvBN(in_channels, in_channels)
        self.gamma = nn.Parameter(torch.zeros(1))
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch_size, channel, height, width = x.size()
        view = (batch_size, -1, height * width)
        projected_query = self.query_conv(x).view(*view).permute(0, 2, 1)
        projected_key = self.key_conv(x).view(*view)
        attention_map = torch.bmm(projected_query, projected_key)  # the fix: compute it in float32
        attention = self.softmax(attention_map)
        projected_value = self.value_conv(x).view(*view)
        out = torch.bmm(projected_value, attention.permute(0, 2, 1)).view(batch_size, channel, height, width)
        return self.gamma * out + x


def fp16_attention_overflow() -> Setup:
    # Inference in float16 on features of a high-resolution image, whose magnitudes run to hundreds.
    attention = _SelfAttention(64).half().eval()
    features = (torch.randn(1, 64, 4, 4, generator=torch.Generator().manual_seed(1)) * 100).half()
    return Setup(lambda: attention(features), attention)


class _PathAttention(nn.Module):
    """NVIDIA/apex#1052, models/MPR.py: scores.masked_fill(~path_mask.unsqueeze(-1), -1e9); in
    float16 -1e9 is out of range (the most negative float16 is -65504), and masked_fill raises."""

    def __init__(self, d: int) -> None:
        super().__init__()
        self.score = nn.Linear(d, 1)

    def forward(self, paths: torch.Tensor, path_mask: torch.Tensor) -> torch.Tensor:
        scores = self.score(paths)
        scores_mask = scores.masked_fill(~path_mask.unsqueeze(-1), -1e9)  # the fix: -1e4, or float("-inf")
        return (torch.softmax(scores_mask, dim=1) * paths).sum(1)


class _RelationModel(nn.Module):
    def __init__(self, d: int = 8, classes: int = 3) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.encoder = nn.Linear(d, d)
        self.path_attention = _PathAttention(d)
        self.classifier = nn.Linear(d, classes)

    def forward(self, paths: torch.Tensor, path_mask: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.path_attention(self.encoder(paths), path_mask))


def fp16_mask_fill_overflow() -> Setup:
    model = _RelationModel().half()  # pure float16 training, as apex's O2 keeps the model
    g = torch.Generator().manual_seed(1)
    paths, labels = torch.randn(4, 5, 8, generator=g).half(), torch.tensor([0, 1, 2, 0])
    path_mask = torch.rand(4, 5, generator=g) > 0.3
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    return Setup(
        loss_step(optimizer, lambda: nn.functional.cross_entropy(model(paths, path_mask).float(), labels)),
        model,
        optimizer,
    )


CASES = (
    Case(
        "amp_clip_40907",
        "https://github.com/pytorch/pytorch/issues/40907",
        "with clip_grad_norm_ in an amp loop the loss no longer decreases: the gradients are clipped scaled",
        Stage.GRAD_MAGNITUDE,
        ("x the GradScaler's scale", "scaler.unscale_(optimizer) before"),
        clip_before_unscale,
    ),
    Case(
        "unet_clip_before_unscale",
        "https://github.com/milesial/Pytorch-UNet/issues/468",
        "scaler.unscale_(optimizer) should be added before gradient clipping",
        Stage.GRAD_MAGNITUDE,
        ("clipped while still scaled",),
        clip_before_unscale,
    ),
    Case(
        "returnn_clip_scaled",
        "https://github.com/rwth-i6/returnn/issues/1590",
        "gradient_clip uses the scaled gradients: the effective clip is reduced by the scale (65k)",
        Stage.GRAD_MAGNITUDE,
        ("shrank them",),
        clip_before_unscale,
    ),
    Case(
        "fp16_adam_eps_147437",
        "https://github.com/pytorch/pytorch/issues/147437",
        "in float16 Adam's default eps=1e-8 is 0 and sqrt(v_t) underflows: parameters NaN after the step",
        Stage.FORWARD_NON_FINITE,
        ("optimizer.step() wrote NaN or Inf into the parameters", "eps=1e-08 is 0 in torch.float16"),
        pure_fp16_adam,
    ),
    Case(
        "glide_half_adam",
        "https://github.com/afiaka87/glide-finetune/issues/5",
        "Adam in float16 produces NaN after the first iteration (a divide by zero); eps 1e-4 fixes it",
        Stage.FORWARD_NON_FINITE,
        ("finite before the step, non-finite after it", "raise eps"),
        pure_fp16_adam,
    ),
    Case(
        "half_precision_nan_8860",
        "https://github.com/pytorch/pytorch/issues/8860",
        "NaN loss in half precision; fixed by Adam eps=1e-4",
        Stage.FORWARD_NON_FINITE,
        ("the parameters are torch.float16", "float32"),
        pure_fp16_adam,
    ),
    Case(
        "focal_log_zero",
        "https://github.com/mathiaszinnen/focal_loss_torch/issues/3",
        "the logarithm of 0 is not defined: torch.log(p_t) needs an eps",
        Stage.FORWARD_NON_FINITE,
        ("every module output is finite: the NaN/Inf appears after the model, in the loss",),
        focal_log_zero,
    ),
    Case(
        "where_nan_gradient",
        "https://github.com/pytorch/pytorch/issues/52248",
        "the branch torch.where does not use computes the gradient 0/0, which becomes NaN",
        Stage.GRAD_NON_FINITE,
        ("fc.weight", "gradient holds NaN or Inf while the forward pass and loss are finite"),
        where_unused_branch,
    ),
    Case(
        "asl_log_zero_watch",
        "https://github.com/Alibaba-MIIL/ASL/pull/6",
        "without an eps, large logits lead to infs and nans due to torch.log(0)",
        Stage.FORWARD_NON_FINITE,
        ("forward #1: output of the model",),
        asl_watch,
        tool="watch",
    ),
    Case(
        "inspyrenet_fp16_bmm_overflow",
        "https://github.com/plemeri/InSPyReNet/issues/36",
        "query and key are not normalized: their bmm overflows to Inf in float16 (mixed precision)",
        Stage.FORWARD_NON_FINITE,
        ("forward #1: input[0] of 'softmax'",),
        fp16_attention_overflow,
        tool="watch",
    ),
    Case(
        "apex_fp16_masked_fill_1e9",
        "https://github.com/NVIDIA/apex/issues/1052",
        "masked_fill(mask, -1e9) in fp16: -1e9 cannot be converted to Half without overflow; -1e4 works",
        Stage.BACKWARD_FAILED,
        ("the forward of module 'path_attention'", "cannot be converted to type", "without overflow"),
        fp16_mask_fill_overflow,
    ),
)
