"""Answers the lesson 03 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "03.1": {
        "right": ['raising = ["c", "a"]', 'raising = set("ac")', 'raising = {"A", "C"}'],
        "wrong": [
            'raising = {"a"}',  # the constant factor is saved too
            'raising = {"a", "b", "c", "d"}',
            'raising = {"a", "c", "d"}',  # mean keeps a size, not a tensor
            'raising = "ac"',
        ],
    },
    "03.2": {
        "right": [
            "step_state = lambda state, t: recur(state.detach(), sequence[t])",
            (
                "def step_state(state, t):\n"
                "    state = state.detach().requires_grad_()\n"
                "    return recur(state, sequence[t])"
            ),
            "def step_state(state, t):\n    return recur(state.detach().clone(), sequence[t])",
        ],
        "wrong": [
            "def step_state(state, t):\n    return recur(state, sequence[t])",
            "def step_state(state, t):\n    return recur(torch.zeros(4), sequence[t])",
            "def step_state(state, t):\n    return recur(state, sequence[t]).detach()",
            "def step_state(state, t):\n    return recur(torch.zeros_like(state), sequence[t])",
        ],
    },
}

TABLE["03.3"] = {
    "right": [
        "def update_baseline(baseline, reward):\n    return (0.9 * baseline + 0.1 * reward).detach()",
        "update_baseline = lambda baseline, reward: 0.9 * baseline + 0.1 * reward.item()",
        "def update_baseline(baseline, reward):\n"
        "    return baseline.mul(0.9).add(reward.detach(), alpha=0.1)",
    ],
    "wrong": [
        "def update_baseline(baseline, reward):\n    return 0.9 * baseline + 0.1 * reward",
        "def update_baseline(baseline, reward):\n    return 0.9 * baseline.detach() + 0.1 * reward",
        "def update_baseline(baseline, reward):\n    return torch.zeros(())",
        "def update_baseline(baseline, reward):\n    return reward.detach()",
    ],
}

TABLE["03.1"]["with_extra_lines"] = [
    'raising = {"a", "c"}\nprint(sorted(raising))',
    "x = torch.tensor([2.0], requires_grad=True)\n"
    "loss = x.exp().sum()\n"
    "loss.backward()\n"
    'raising = {"a", "c"}',
]
TABLE["03.2"]["with_extra_lines"] = [
    "def step_state(state, t):\n    return recur(state.detach(), sequence[t])\n\n\n"
    "print(step_state(torch.zeros(4), 0))\n"
    "step_state(step_state(torch.zeros(4), 0), 1).sum().backward()",
]
TABLE["03.3"]["with_extra_lines"] = [
    "def update_baseline(baseline, reward):\n    return 0.9 * baseline + 0.1 * reward.detach()\n\n\n"
    "print(update_baseline(torch.zeros(()), torch.tensor(1.0, requires_grad=True)))",
]
