"""What the step does around backward and optimizer.step(): gradient clipping that clips nothing the
step uses (after the step, or on an iterator already consumed), and a model left in eval mode."""

from __future__ import annotations

import torch
from torch import nn

from field_corpus.case import Case, Setup, loss_step, mlp, regression
from helpers import Stage


def clip_after_step(max_norm: float = 0.1) -> Setup:
    # VGraphRNN/VGRNN#4, jongwook/onsets-and-frames#24, awslabs/graphstorm#1366 and
    # emited/VariationalRecurrentNeuralNetwork#3: clip_grad_norm_ is called after optimizer.step().
    model, (x, y) = mlp(), regression()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        return loss

    return Setup(step, model, optimizer)


def clip_consumed_generator() -> Setup:
    # pytorch/pytorch#148259: the parameters() generator is iterated (here: to count the
    # gradients) before it is passed to clip_grad_norm_, which then receives nothing and clips nothing.
    model, (x, y) = mlp(), regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        params_to_clip = model.parameters()
        _ = sum(1 for p in params_to_clip if p.grad is not None)
        torch.nn.utils.clip_grad_norm_(params_to_clip, 0.01)
        optimizer.step()
        return loss

    return Setup(step, model, optimizer)


def titan_clip_twice_through_a_generator() -> Setup:
    # pytorch/torchtitan#1258: a clip utility computes the total norm from the parameters (consuming
    # the generator it was given), then clips with the same, now empty, generator.
    model, (x, y) = mlp(), regression()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def clip(parameters, max_norm: float) -> torch.Tensor:
        grads = [p.grad for p in parameters if p.grad is not None]
        total = torch.nn.utils.get_total_norm(grads)
        torch.nn.utils.clip_grads_with_norm_(parameters, max_norm, total)
        return total

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        clip(model.parameters(), 0.01)
        optimizer.step()
        return loss

    return Setup(step, model, optimizer)


class _Classifier(nn.Module):
    """A small classifier with dropout and BatchNorm, whose behaviour eval() changes."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.features = nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5))
        self.head = nn.Linear(16, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def left_in_eval_after_validation() -> Setup:
    # wkentaro/pytorch-fcn#57, joeynmt/joeynmt#184 and asyml/texar-pytorch#310: a validation run in
    # the middle of an epoch calls model.eval() and nothing calls model.train() again before training
    # resumes: dropout is off and BatchNorm uses (and no longer updates) its running statistics.
    model = _Classifier()
    g = torch.Generator().manual_seed(1)
    x, labels = torch.randn(16, 6, generator=g), torch.randint(0, 3, (16,), generator=g)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.eval()  # validate() ran here
    with torch.no_grad():
        model(x)

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), labels)
        loss.backward()
        optimizer.step()
        return loss

    return Setup(step, model, optimizer)


class _LanguageModel(nn.Module):
    """A language model's layers where eval() matters: dropout between the embedding and the head."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.embed = nn.Embedding(11, 8)
        self.drop = nn.Dropout(0.1)
        self.norm = nn.LayerNorm(8)
        self.head = nn.Linear(8, 11)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.norm(self.drop(self.embed(tokens))))


def evaluated_during_training() -> Setup:
    # ThilinaRajapakse/simpletransformers#941: with evaluate_during_training=True the evaluation sets
    # model.eval() and the language-model training loop resumes without model.train() until the next
    # epoch: its dropout layers run in eval mode.
    model = _LanguageModel()
    tokens = (torch.arange(6).repeat(4, 1) + torch.arange(4)[:, None]) % 11
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model.eval()  # evaluate_model() ran here

    def loss() -> torch.Tensor:
        logits = model(tokens[:, :-1])
        return nn.functional.cross_entropy(logits.reshape(-1, 11), tokens[:, 1:].reshape(-1))

    return Setup(loss_step(optimizer, loss), model, optimizer)


_CLIP_AFTER = ("clip_grad_norm_", "after optimizer.step()")
_CLIP_NOTHING = ("clip_grad_norm_", "no parameter")
_EVAL = ("eval", "features.1", "features.3", "model.train()")

CASES: tuple[Case, ...] = (
    Case(
        "vgrnn_clip_after_step",
        "https://github.com/VGraphRNN/VGRNN/issues/4",
        "clip_grad_norm() is called after opt.step(), so it isn't doing anything",
        Stage.GRAD_MAGNITUDE,
        _CLIP_AFTER,
        clip_after_step,
        first_run="OK",
    ),
    Case(
        "onsets_frames_clip_after_step",
        "https://github.com/jongwook/onsets-and-frames/issues/24",
        "the gradient clipping is after the .backward() and .step() operations",
        Stage.GRAD_MAGNITUDE,
        _CLIP_AFTER,
        clip_after_step,
        first_run="OK",
    ),
    Case(
        "graphstorm_clip_after_step",
        "https://github.com/awslabs/graphstorm/issues/1366",
        "clipping is applied after the optimizer step: --max-grad-norm silently does nothing",
        Stage.GRAD_MAGNITUDE,
        _CLIP_AFTER,
        clip_after_step,
        first_run="OK",
    ),
    Case(
        "vrnn_grad_norm_after_step",
        "https://github.com/emited/VariationalRecurrentNeuralNetwork/issues/3",
        "grad_norm (line 32) should be before optimizer.step() (line 35)",
        Stage.GRAD_MAGNITUDE,
        _CLIP_AFTER,
        lambda: clip_after_step(10.0),
        first_run="OK",
    ),
    Case(
        "pytorch_clip_exhausted_generator",
        "https://github.com/pytorch/pytorch/issues/148259",
        "clip_grad_norm_ receives an exhausted generator: no gradient clipping occurs, silently",
        Stage.GRAD_MAGNITUDE,
        _CLIP_NOTHING,
        clip_consumed_generator,
        first_run="OK",
    ),
    Case(
        "torchtitan_clip_generator_reused",
        "https://github.com/pytorch/torchtitan/pull/1258",
        "a generator of parameters is exhausted computing the norm; the clip then gets an empty generator",
        Stage.GRAD_MAGNITUDE,
        ("clip_grads_with_norm_", "no parameter"),
        titan_clip_twice_through_a_generator,
        first_run="OK",
    ),
    Case(
        "pytorch_fcn_eval_after_validation",
        "https://github.com/wkentaro/pytorch-fcn/issues/57",
        "after validation in train_epoch the model is not changed back into training mode",
        Stage.GRAD_MODE_DISABLED,
        _EVAL,
        left_in_eval_after_validation,
        first_run="OK",
    ),
    Case(
        "joeynmt_eval_after_validation",
        "https://github.com/joeynmt/joeynmt/issues/184",
        "after validating on the dev data the model is still in model.eval() until the next epoch",
        Stage.GRAD_MODE_DISABLED,
        _EVAL,
        left_in_eval_after_validation,
        first_run="OK",
    ),
    Case(
        "texar_eval_epoch_no_train",
        "https://github.com/asyml/texar-pytorch/issues/310",
        "after _eval_epoch() the model is not switched back with model.train()",
        Stage.GRAD_MODE_DISABLED,
        _EVAL,
        left_in_eval_after_validation,
        first_run="OK",
    ),
    Case(
        "simpletransformers_eval_during_training",
        "https://github.com/ThilinaRajapakse/simpletransformers/issues/941",
        "with evaluate_during_training=True the model stays in eval mode after evaluating: dropout is off",
        Stage.GRAD_MODE_DISABLED,
        ("eval", "drop", "model.train()"),
        evaluated_during_training,
        first_run="named",
    ),
)
