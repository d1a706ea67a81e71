"""What the loss computes: a target that is not detached, probabilities fed to a loss that expects
logits, a target that broadcasts, a term that carries no gradient, and a NaN born in the loss."""

from __future__ import annotations

import copy

import torch
from torch import nn
from torch.nn import functional as F

from field_corpus.case import Case, Setup, loss_step
from helpers import Stage


def _q_net(seed: int = 0) -> nn.Sequential:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))


def _transitions(seed: int = 1) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    states, next_states = torch.randn(8, 4, generator=g), torch.randn(8, 4, generator=g)
    actions, rewards = torch.randint(0, 2, (8, 1), generator=g), torch.randn(8, 1, generator=g)
    return states, actions, rewards, next_states


def td_target_same_network() -> Setup:
    # datawhalechina/easy-rl#117: the TD target has no detach() and target_net is the same object as
    # policy_net, so the gradient also flows through the bootstrapped target.
    policy_net = _q_net()
    target_net = policy_net
    optimizer = torch.optim.Adam(policy_net.parameters(), lr=1e-3)
    states, actions, rewards, next_states = _transitions()

    def loss() -> torch.Tensor:
        q = policy_net(states).gather(1, actions)
        next_q = target_net(next_states).max(1, keepdim=True)[0]
        target = rewards + 0.99 * next_q
        return F.mse_loss(q, target)

    return Setup(loss_step(optimizer, loss), policy_net, optimizer)


def td_target_network_not_detached() -> Setup:
    # philtabor/Deep-Q-Learning-Paper-To-Code#9 and boyu-ai/Hands-on-RL#112: a separate target network,
    # not in the optimizer, computes the TD target without detach(): backward runs through it and
    # accumulates gradients in it at every step.
    q_eval = _q_net()
    q_next = copy.deepcopy(q_eval)
    optimizer = torch.optim.Adam(q_eval.parameters(), lr=1e-3)
    states, actions, rewards, next_states = _transitions()

    def loss() -> torch.Tensor:
        q_pred = q_eval(states).gather(1, actions)
        q_target = rewards + 0.99 * q_next(next_states).max(1, keepdim=True)[0]
        return F.mse_loss(q_pred, q_target)

    return Setup(loss_step(optimizer, loss), q_eval, optimizer)


def sarsa_next_q_not_detached() -> Setup:
    # kengz/SLM-Lab#322 (SARSA bug fix): next_q_preds, computed by the same network for the next
    # actions, was not detached, so the SARSA target r + gamma * Q(s', a') trains the network too.
    net = _q_net()
    optimizer = torch.optim.RMSprop(net.parameters(), lr=1e-3)
    states, actions, rewards, next_states = _transitions()
    next_actions = torch.randint(0, 2, (8, 1), generator=torch.Generator().manual_seed(3))

    def loss() -> torch.Tensor:
        q_preds = net(states).gather(1, actions)
        next_q_preds = net(next_states).gather(1, next_actions)
        q_targets = rewards + 0.99 * next_q_preds
        return nn.MSELoss()(q_preds, q_targets)

    return Setup(loss_step(optimizer, loss), net, optimizer)


def _binary_data(seed: int = 2) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(16, 5, generator=g), torch.randint(0, 2, (16, 1), generator=g).float()


def sigmoid_then_bce_with_logits(module_sigmoid: bool) -> Setup:
    # itakurah/focal-loss-pytorch#5 and yudi-mars/daisyRec#15: torch.sigmoid, then
    # binary_cross_entropy_with_logits, which applies a sigmoid again; cvg/glue-factory#89: the same
    # with an nn.Sigmoid inside the model and nn.BCEWithLogitsLoss.
    torch.manual_seed(0)
    layers = [nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1)]
    model = nn.Sequential(*layers, nn.Sigmoid()) if module_sigmoid else nn.Sequential(*layers)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = _binary_data()
    criterion = nn.BCEWithLogitsLoss()

    def loss() -> torch.Tensor:
        if module_sigmoid:
            return criterion(model(x), y)
        return F.binary_cross_entropy_with_logits(torch.sigmoid(model(x)), y)

    return Setup(loss_step(optimizer, loss), model, optimizer)


def squeezed_logits_against_column_labels() -> Setup:
    # deepset-ai/FARM#229: the regression head's output is squeezed to [32] while the labels are
    # [32, 1]: MSELoss broadcasts them to [32, 32] and warns.
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    g = torch.Generator().manual_seed(3)
    x, labels = torch.randn(32, 6, generator=g), torch.randn(32, 1, generator=g)
    criterion = nn.MSELoss()
    return Setup(loss_step(optimizer, lambda: criterion(model(x).squeeze(-1), labels)), model, optimizer)


def depth_map_without_channel() -> Setup:
    # jiwei0921/CoNet#3: smooth_l1_loss of a [2, 1, H, W] prediction against a [2, H, W] depth map.
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 1, 3, padding=1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    g = torch.Generator().manual_seed(4)
    image, depth = torch.randn(2, 3, 8, 8, generator=g), torch.rand(2, 8, 8, generator=g)
    return Setup(
        loss_step(optimizer, lambda: F.smooth_l1_loss(model(image), depth, reduction="sum")), model, optimizer
    )


def hierarchical_argmax_term() -> Setup:
    # Ugenteraan/Deep_Hierarchical_Classification#6: the dependency loss is computed from argmax
    # predictions and a new FloatTensor, so it carries no gradient; the total loss adds it to the
    # live cross-entropy terms, and beta changes nothing.
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2 + 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(5)
    x = torch.randn(12, 6, generator=g)
    fine = torch.randint(0, 4, (12,), generator=g)
    coarse = fine // 2
    beta = 0.8

    def loss() -> torch.Tensor:
        out = model(x)
        coarse_logits, fine_logits = out[:, :2], out[:, 2:]
        lloss = F.cross_entropy(coarse_logits, coarse) + F.cross_entropy(fine_logits, fine)
        predicted_coarse = torch.argmax(coarse_logits, dim=1)
        predicted_fine = torch.argmax(fine_logits, dim=1)
        mismatch = torch.FloatTensor((predicted_fine // 2 != predicted_coarse).float().tolist())
        dloss = beta * torch.sum(mismatch) / 12
        return lloss + dloss

    return Setup(loss_step(optimizer, loss), model, optimizer)


def image_gradient_loss_of_argmax() -> Setup:
    # wonbeomjang/mobile-hair-segmentation-pytorch#3: the image-gradient loss is computed on
    # pred.argmax(1).float(), which is not differentiable; it is added to the live BCE loss.
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 2, 3, padding=1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(6)
    image, mask = torch.randn(2, 3, 8, 8, generator=g), torch.randint(0, 2, (2, 8, 8), generator=g)

    def loss() -> torch.Tensor:
        logit = model(image)
        bce = F.cross_entropy(logit, mask)
        pred = logit.argmax(1).view(2, 1, 8, 8).float()
        dx = (pred[..., 1:] - pred[..., :-1]).abs().mean()
        dy = (pred[..., 1:, :] - pred[..., :-1, :]).abs().mean()
        return bce + 0.5 * (dx + dy)

    return Setup(loss_step(optimizer, loss), model, optimizer)


def number_loss_without_numbers() -> Setup:
    # tum-ai/number-token-loss#73: with no number token in the labels the mask is all False and the
    # mean over the empty selection is NaN: the NaN is born in the loss, every module output is finite.
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(10, 8), nn.Linear(8, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    tokens = torch.tensor([[1, 2, 3, 4]])
    number_ids = torch.tensor([7, 8, 9])

    def loss() -> torch.Tensor:
        logits = model(tokens)
        valid = torch.isin(tokens, number_ids)
        expected = (logits.softmax(-1) * torch.arange(10.0)).sum(-1)
        return ((expected - tokens.float()) ** 2)[valid].mean()

    return Setup(loss_step(optimizer, loss), model, optimizer)


def proposal_loss_without_positives() -> Setup:
    # JJBOY/BMN-Boundary-Matching-Network#23: no proposal has iou > 0.7 in a small batch, so the
    # positive term's ratio divides 0 by 0 and the loss is NaN while the model's outputs are finite.
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1), nn.Sigmoid())
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(7)
    x, iou = torch.randn(6, 4, generator=g), torch.rand(6, 1, generator=g) * 0.5

    def loss() -> torch.Tensor:
        pred = model(x)
        positive = (iou > 0.7).float()
        ratio = positive.sum() / positive.numel()
        pos_loss = -(positive * torch.log(pred + 1e-6)).sum() / positive.sum()
        return ratio * pos_loss + (-(1 - positive) * torch.log(1 - pred + 1e-6)).mean()

    return Setup(loss_step(optimizer, loss), model, optimizer)


_TARGET = ("target", "requires grad", "detach")
_LOGITS = ("binary_cross_entropy_with_logits", "Sigmoid")
_BROADCAST = ("UserWarning", "broadcast")
_DEAD = ("term", "no gradient")

CASES: tuple[Case, ...] = (
    Case(
        "easy_rl_td_target_not_detached",
        "https://github.com/datawhalechina/easy-rl/pull/117",
        "the TD target has no detach() and target_net is the same network as policy_net",
        Stage.LOSS_NOT_IN_GRAPH,
        _TARGET,
        td_target_same_network,
        first_run="OK",
    ),
    Case(
        "dqn_paper_target_network_not_detached",
        "https://github.com/philtabor/Deep-Q-Learning-Paper-To-Code/issues/9",
        "the target network needs detach() so it is out of the gradient computation",
        Stage.LOSS_NOT_IN_GRAPH,
        _TARGET,
        td_target_network_not_detached,
        first_run="OK",
    ),
    Case(
        "hands_on_rl_td_target_not_detached",
        "https://github.com/boyu-ai/Hands-on-RL/issues/112",
        "the DQN TD target is not detached: the target network accumulates gradients too",
        Stage.LOSS_NOT_IN_GRAPH,
        _TARGET,
        td_target_network_not_detached,
        first_run="OK",
    ),
    Case(
        "slm_lab_sarsa_next_q_not_detached",
        "https://github.com/kengz/SLM-Lab/pull/322",
        "SARSA's next_q_preds (the same network on the next actions) was not detached in the target",
        Stage.LOSS_NOT_IN_GRAPH,
        _TARGET,
        sarsa_next_q_not_detached,
        first_run="named",
    ),
    Case(
        "focal_loss_double_sigmoid",
        "https://github.com/itakurah/focal-loss-pytorch/pull/5",
        "binary_cross_entropy_with_logits already applies a sigmoid: the sigmoid before it applies it twice",
        Stage.LOSS_NOT_IN_GRAPH,
        _LOGITS,
        lambda: sigmoid_then_bce_with_logits(module_sigmoid=False),
        first_run="OK",
    ),
    Case(
        "daisyrec_sigmoid_before_bce_logits",
        "https://github.com/yudi-mars/daisyRec/pull/15",
        "no sigmoid is needed because BCEWithLogitsLoss has one; otherwise the loss does not converge",
        Stage.LOSS_NOT_IN_GRAPH,
        _LOGITS,
        lambda: sigmoid_then_bce_with_logits(module_sigmoid=False),
        first_run="OK",
    ),
    Case(
        "glue_factory_sigmoid_module_bce_logits",
        "https://github.com/cvg/glue-factory/issues/89",
        "nn.Sigmoid ends the token head and BCEWithLogitsLoss applies a sigmoid again",
        Stage.LOSS_NOT_IN_GRAPH,
        _LOGITS,
        lambda: sigmoid_then_bce_with_logits(module_sigmoid=True),
        first_run="OK",
    ),
    Case(
        "farm_squeezed_logits_broadcast",
        "https://github.com/deepset-ai/FARM/issues/229",
        "the logits were squeezed to [32] and do not match the [32, 1] labels: the loss broadcasts",
        Stage.BACKWARD_FAILED,
        _BROADCAST,
        squeezed_logits_against_column_labels,
        first_run="OK",
    ),
    Case(
        "conet_depth_target_broadcast",
        "https://github.com/jiwei0921/CoNet/issues/3",
        "a [2, 256, 256] target against a [2, 1, 256, 256] input in smooth_l1_loss broadcasts",
        Stage.BACKWARD_FAILED,
        _BROADCAST,
        depth_map_without_channel,
        first_run="OK",
    ),
    Case(
        "hierarchical_argmax_dependency_loss",
        "https://github.com/Ugenteraan/Deep_Hierarchical_Classification/issues/6",
        "argmax and a new FloatTensor cut the dependency loss from the graph: the model cannot learn from it",
        Stage.LOSS_NOT_IN_GRAPH,
        _DEAD,
        hierarchical_argmax_term,
        first_run="OK",
    ),
    Case(
        "hair_segmentation_argmax_gradient_loss",
        "https://github.com/wonbeomjang/mobile-hair-segmentation-pytorch/issues/3",
        "ImageGradientLoss uses pred.argmax(1), which is not differentiable: the term does not backward",
        Stage.LOSS_NOT_IN_GRAPH,
        _DEAD,
        image_gradient_loss_of_argmax,
        first_run="OK",
    ),
    Case(
        "number_token_loss_empty_mean",
        "https://github.com/tum-ai/number-token-loss/issues/73",
        "no number token in the labels: the mask is all False and the mean of the empty loss is NaN",
        Stage.FORWARD_NON_FINITE,
        ("loss",),
        number_loss_without_numbers,
        tool="watch",
        first_run="OK",
    ),
    Case(
        "bmn_pem_loss_no_positives",
        "https://github.com/JJBOY/BMN-Boundary-Matching-Network/issues/23",
        "with no iou > 0.7 in a small batch the statistical ratio in the loss divides by zero: NaN",
        Stage.FORWARD_NON_FINITE,
        ("loss",),
        proposal_loss_without_positives,
        tool="watch",
        first_run="OK",
    ),
)
