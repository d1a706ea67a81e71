"""Real-shaped models for the real-model tests, built in code (no downloads), small enough for CI.

ResNet-18's BasicBlock (3x3 convs, BatchNorm, a projected shortcut), MobileNet's inverted
residual (depthwise conv, BatchNorm, ReLU6), an LSTM language model, a padded-sequence encoder
with a masked mean written inline in forward, and GPT-2 (transformers) with a tied head.
torchvision's own models are used where torchvision imports (see torchvision_or_skip).
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

__all__ = [
    "BasicBlock",
    "LSTMLanguageModel",
    "MaskedMeanClassifier",
    "PlainListResNet",
    "ResNet18",
    "gpt2_tiny",
    "mobilenet_tiny",
    "resnet18",
    "resnet_tiny",
    "torchvision_or_skip",
    "training_step",
]


def training_step(optimizer, compute_loss, scaler=None, scheduler=None):
    """One training step as real loops write it: zero_grad, backward (scaled), step, schedule."""

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = compute_loss()
        if scaler is None:
            loss.backward()
            optimizer.step()
        else:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        if scheduler is not None:
            scheduler.step()
        return loss

    return step


class BasicBlock(nn.Module):
    """torchvision's ResNet BasicBlock: conv-bn-relu-conv-bn plus the (projected) shortcut."""

    def __init__(self, cin: int, cout: int, stride: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """The residual block."""
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return self.relu(out)


def resnet_tiny(num_classes: int = 10, width: int = 8, seed: int = 0) -> nn.Module:
    """A ResNet-18-shaped network (stem, four stages of two BasicBlocks, pooled linear head)."""
    torch.manual_seed(seed)
    stages, cin = [], width
    for i, w in enumerate((width, 2 * width, 4 * width, 8 * width)):
        stages += [BasicBlock(cin, w, 1 if i == 0 else 2), BasicBlock(w, w)]
        cin = w
    return nn.Sequential(
        nn.Conv2d(3, width, 3, 1, 1, bias=False),
        nn.BatchNorm2d(width),
        nn.ReLU(inplace=True),
        *stages,
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(cin, num_classes),
    )


class ResNet18(nn.Module):
    """torchvision's resnet18, layer for layer and name for name (11,689,512 parameters at 1000 classes)."""

    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        widths, cin = (64, 128, 256, 512), 64
        for i, w in enumerate(widths, start=1):
            setattr(
                self, f"layer{i}", nn.Sequential(BasicBlock(cin, w, 1 if i == 1 else 2), BasicBlock(w, w))
            )
            cin = w
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(512, num_classes)
        for m in self.modules():  # torchvision's initialisation
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """stem, four stages, pooled linear head."""
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def resnet18(num_classes: int = 1000, seed: int = 0) -> nn.Module:
    """torchvision.models.resnet18 where torchvision imports, else the same network built here."""
    torch.manual_seed(seed)
    try:
        import torchvision
    except (ImportError, RuntimeError):
        return ResNet18(num_classes)
    return torchvision.models.resnet18(num_classes=num_classes)


class PlainListResNet(nn.Module):
    """The bug people report: residual blocks kept in a Python list, so they are never registered."""

    def __init__(self, width: int = 8, seed: int = 0) -> None:
        super().__init__()
        torch.manual_seed(seed)
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        self.blocks = [BasicBlock(width, width), BasicBlock(width, 2 * width, 2)]  # should be nn.ModuleList
        self.head = nn.Linear(2 * width, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """stem, the listed blocks, pooled head."""
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return self.head(x.mean(dim=(2, 3)))


class _InvertedResidual(nn.Module):
    """MobileNetV2's block: 1x1 expand, 3x3 depthwise, 1x1 project (ReLU6, BatchNorm)."""

    def __init__(self, cin: int, cout: int, stride: int, expand: int = 4) -> None:
        super().__init__()
        hidden = cin * expand
        self.residual = stride == 1 and cin == cout
        self.block = nn.Sequential(
            nn.Conv2d(cin, hidden, 1, bias=False),
            nn.BatchNorm2d(hidden),
            nn.ReLU6(inplace=True),
            nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False),
            nn.BatchNorm2d(hidden),
            nn.ReLU6(inplace=True),
            nn.Conv2d(hidden, cout, 1, bias=False),
            nn.BatchNorm2d(cout),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """The block, with the residual connection when shapes allow."""
        out = self.block(x)
        return x + out if self.residual else out


def mobilenet_tiny(num_classes: int = 10, seed: int = 0) -> nn.Module:
    """A MobileNetV2-shaped network with depthwise convolutions and dropout before the head."""
    torch.manual_seed(seed)
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, 2, 1, bias=False),
        nn.BatchNorm2d(8),
        nn.ReLU6(inplace=True),
        _InvertedResidual(8, 8, 1),
        _InvertedResidual(8, 16, 2),
        _InvertedResidual(16, 16, 1),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(16, num_classes),
    )


class LSTMLanguageModel(nn.Module):
    """Embedding, a 2-layer LSTM and a head tied to the embedding (the classic word-level LM)."""

    def __init__(self, vocab: int = 50, dim: int = 16, seed: int = 0) -> None:
        super().__init__()
        torch.manual_seed(seed)
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, dim, num_layers=2, batch_first=True, dropout=0.1)
        self.head = nn.Linear(dim, vocab)
        self.head.weight = self.embed.weight  # weight tying

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Logits for the next token at every position."""
        out, _ = self.lstm(self.embed(tokens))
        return self.head(out)


class MaskedMeanClassifier(nn.Module):
    """Embedding, a Transformer encoder with a padding mask, a masked mean written inline, a head.

    The mean is `sum / count`: a fully padded row gives 0 / 0 = NaN in this forward, between
    the encoder and the head (the bug people report as "NaN from the Linear layer").
    """

    def __init__(self, vocab: int = 30, dim: int = 16, seed: int = 0) -> None:
        super().__init__()
        torch.manual_seed(seed)
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        layer = nn.TransformerEncoderLayer(dim, 2, 32, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.head = nn.Linear(dim, 3)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Class logits from the mean of the non-padded positions."""
        pad = tokens == 0
        h = self.encoder(self.embed(tokens), src_key_padding_mask=pad & ~pad.all(dim=1, keepdim=True))
        keep = (~pad).unsqueeze(-1).float()
        pooled = (h * keep).sum(dim=1) / keep.sum(dim=1)  # NaN for a row of padding only
        return self.head(pooled)


def gpt2_tiny(seed: int = 0) -> nn.Module:
    """GPT-2 from transformers with a tiny config (no download), its head tied to the embedding."""
    transformers = pytest.importorskip("transformers", reason="transformers is in the [dev] extra")
    torch.manual_seed(seed)
    config = transformers.GPT2Config(
        n_layer=2, n_head=2, n_embd=32, vocab_size=64, n_positions=16, bos_token_id=0, eos_token_id=0
    )
    model = transformers.GPT2LMHeadModel(config)
    assert model.lm_head.weight is model.transformer.wte.weight
    return model


def torchvision_or_skip():
    """torchvision, or a skip: PyPI's torchvision does not load beside the torch 2.13 CPU wheel
    ("operator torchvision::nms does not exist"); it runs in the torch 2.14 + torchvision 0.29 env."""
    try:
        import torchvision
    except (ImportError, RuntimeError) as exc:
        pytest.skip(f"torchvision does not import beside torch {torch.__version__}: {exc}")
    return torchvision
