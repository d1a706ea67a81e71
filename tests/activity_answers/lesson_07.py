"""Answers the lesson 07 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "07.1": {
        "right": [
            'predicted_sqrt_grad = (float("inf"), 1 / 4)',
            "predicted_sqrt_grad = [float('+inf'), 0.25]",
        ],
        "wrong": [
            'predicted_sqrt_grad = [float("nan"), 0.25]',
            "predicted_sqrt_grad = [0.0, 0.25]",
            'predicted_sqrt_grad = [float("inf"), 0.5]',
        ],
    },
    "07.2": {
        "right": [
            "masked_log = lambda v: torch.log(torch.where(v > 0, v, torch.ones_like(v)))",
            "def masked_log(v):\n    return torch.log(v.clamp_min(1e-12)) * (v > 0)",
        ],
        "wrong": [
            "def masked_log(v):\n    return torch.where(v > 0, torch.log(v), 0.0)",
            "def masked_log(v):\n    return torch.where(v > 0, torch.log(v.abs()), 0.0)",
            "def masked_log(v):\n    return torch.where(v > 0, torch.log(v), 0.0).nan_to_num()",
            "def masked_log(v):\n    return torch.where(v > 0, torch.log(v.detach().clamp_min(1e-12)), 0.0)",
        ],
    },
}

TABLE["07.1"]["with_extra_lines"] = ['predicted_sqrt_grad = [float("inf"), 0.25]\nprint(predicted_sqrt_grad)']
TABLE["07.2"]["right"].append(  # a clamp at a tiny epsilon keeps the values of every positive input
    "def masked_log(v):\n    return torch.where(v > 0, torch.log(v.clamp(min=1e-30)), 0.0)"
)
TABLE["07.2"]["wrong"] += [  # clamps that change the values of inputs between 0 and 1
    "def masked_log(v):\n    return torch.where(v > 0, torch.log(v.clamp(min=1)), 0.0)",
    "def masked_log(v):\n    return torch.log(v.clamp(min=1.0))",
]
TABLE["07.2"]["with_extra_lines"] = [
    "def masked_log(v):\n"
    "    safe = torch.where(v > 0, v, torch.ones_like(v))\n"
    "    return torch.where(v > 0, torch.log(safe), 0.0)\n\n\n"
    "probe = torch.tensor([-1.0, 2.0], requires_grad=True)\n"
    "masked_log(probe).sum().backward()\n"
    "print(probe.grad)",
]
