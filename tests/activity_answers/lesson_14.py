"""Answers the lesson 14 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "14.1": {
        "right": ['predicted_stage = Stage["PARAMS_NOT_UPDATED"]', 'predicted_stage = "PARAMS_NOT_UPDATED"'],
        "wrong": [
            "predicted_stage = Stage.GRAD_MISSING",
            "predicted_stage = Stage.OK",
            "predicted_stage = Stage.GRADS_ACCUMULATING",
        ],
    },
}

TABLE["14.1"]["with_extra_lines"] = ["predicted_stage = Stage.PARAMS_NOT_UPDATED\nprint(predicted_stage)"]

TABLE["14.3"] = {
    "right": ['registers = {"e", "d", "b"}', 'registers = ["b", "d", "e"]', 'registers = "bde"'],
    "wrong": [
        'registers = {"b", "d"}',  # add_module registers too
        'registers = {"b", "c", "d", "e"}',  # a plain dict is not a ModuleDict
        'registers = {"b", "d", "e", "g"}',  # __dict__ goes around __setattr__
    ],
    "with_extra_lines": [
        'registers = {"b", "d", "e"}\n'
        "probe = nn.Module()\n"
        'probe.add_module("extra", nn.Linear(4, 4))\n'
        "print(len(list(probe.parameters())))",
    ],
}

TABLE["14.2"] = {
    "right": [
        "def safe_log(h):\n    return torch.log(h.clamp(min=1e-30)) * (h > 0)",
        "safe_log = lambda h: torch.log(h.masked_fill(h <= 0, 1.0))",
        "class SafeLog(nn.Module):\n"
        "    def forward(self, h):\n"
        "        positive = h > 0\n"
        "        out = torch.zeros_like(h)\n"
        "        out[positive] = torch.log(h[positive])\n"
        "        return out\n"
        "\n\n"
        "safe_log = SafeLog()",
    ],
    "wrong": [
        "def safe_log(h):\n    return torch.where(h > 0, torch.log(h), 0.0)",  # still NaN in backward
        "def safe_log(h):\n    return torch.log(torch.relu(h) + 1e-12)",  # -27.6 where h <= 0, not 0
        "def safe_log(h):\n    return torch.log(h.clamp(min=0)) * (h > 0)",  # log(0) * 0 is NaN at h = 0
        "def safe_log(h):\n    return torch.log(h.abs()) * (h > 0)",  # the same NaN at h = 0
    ],
    "with_extra_lines": [
        "def safe_log(h):\n"
        "    positive = h > 0\n"
        "    return torch.where(positive, torch.log(torch.where(positive, h, torch.ones_like(h))), 0.0)\n"
        "\n\n"
        "probe = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)\n"
        "safe_log(probe).sum().backward()\n"
        "print(probe.grad)",
    ],
}
