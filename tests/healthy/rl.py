"""Reinforcement learning loops: DQN with a target network, a policy with illegal actions masked."""

from __future__ import annotations

import copy

import torch
from torch import nn
from torch.nn import functional as F

from healthy.loop import Healthy, Loop, data, evaluate, plain


def dqn_target_network() -> Loop:
    """One-step TD on a fixed replay buffer; the target comes from a separate, frozen copy."""
    torch.manual_seed(0)
    q = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
    target = copy.deepcopy(q).requires_grad_(False)
    s, s2 = data(15, 128, 4), data(16, 128, 4)
    a = torch.randint(0, 2, (128,), generator=torch.Generator().manual_seed(17))
    r = s[:, 0] * (2 * a - 1).float()  # the better action depends on the state
    done = torch.zeros(128)
    optimizer = torch.optim.Adam(q.parameters(), lr=1e-2)

    def loss() -> torch.Tensor:
        with torch.no_grad():
            y = r + 0.5 * (1 - done) * target(s2).max(1).values
        return F.smooth_l1_loss(q(s).gather(1, a[:, None]).squeeze(1), y)

    def metric() -> float:  # how far Q is from the fixed point of the Bellman update
        with torch.no_grad():
            y = r + 0.5 * q(s2).max(1).values
        return evaluate(q, lambda: F.smooth_l1_loss(q(s).gather(1, a[:, None]).squeeze(1), y))

    return Loop(plain(optimizer, loss), q, optimizer, metric)


class Policy(nn.Module):
    """A policy whose logits are -inf at illegal actions: their probability is exactly 0."""

    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 5))

    def forward(self, s: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
        return self.net(s).masked_fill(~legal, float("-inf"))


def policy_illegal_actions_masked() -> Loop:
    """REINFORCE on a bandit per state, with an entropy bonus; illegal actions masked with -inf."""
    torch.manual_seed(0)
    model = Policy()
    s = data(18, 64, 4)
    legal = torch.rand(64, 5, generator=torch.Generator().manual_seed(19)) > 0.4
    legal[:, 0] = True
    reward = (data(20, 4, 5)[None] * s[..., None]).sum(1)  # the reward of each action in each state
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-2)

    def loss() -> torch.Tensor:
        dist = torch.distributions.Categorical(logits=model(s, legal))
        action = dist.sample()
        advantage = reward.gather(1, action[:, None]).squeeze(1)
        return -(dist.log_prob(action) * advantage).mean() - 0.01 * dist.entropy().mean()

    def metric() -> float:  # the expected reward the policy misses, over legal actions
        probs = F.softmax(model(s, legal), dim=1)
        best = reward.masked_fill(~legal, float("-inf")).max(1).values
        return float((best - (probs * reward.masked_fill(~legal, 0.0)).sum(1)).mean())

    return Loop(plain(optimizer, loss), model, optimizer, lambda: evaluate(model, metric))


LOOPS = (
    Healthy("dqn_target_network", dqn_target_network),
    Healthy("policy_illegal_actions_masked", policy_illegal_actions_masked),
)
