"""Answers the lesson 03 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "03.1": {
        "right": [
            "raises_for_add = False\nraises_for_square = True",
            "raises_for_square, raises_for_add = True, False",
        ],
        "wrong": [
            "raises_for_square = True\nraises_for_add = True",
            "raises_for_square = False\nraises_for_add = False",
            "raises_for_square = 1\nraises_for_add = 0",
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
