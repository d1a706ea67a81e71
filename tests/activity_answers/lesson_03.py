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
TABLE["03.3"]["with_extra_lines"] = [
    "def update_baseline(baseline, reward):\n    return 0.9 * baseline + 0.1 * reward.detach()\n\n\n"
    "print(update_baseline(torch.zeros(()), torch.tensor(1.0, requires_grad=True)))",
]

TABLE["03.2"] = {
    "right": ["predicted_sizes = [11, 20] * 2 + [11]", "predicted_sizes = (11, 20, 11, 20, 11)"],
    "wrong": [
        "predicted_sizes = [11, 20, 29, 38, 47]",  # as if nothing were detached
        "predicted_sizes = [11, 11, 11, 11, 11]",  # as if every step were detached
        "predicted_sizes = [20, 11, 20, 11, 20]",  # the detach comes before the step
    ],
    "with_extra_lines": ["predicted_sizes = [11, 20, 11, 20, 11]\nprint(sum(predicted_sizes))"],
}
