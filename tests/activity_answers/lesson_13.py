"""Answers the lesson 13 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "13.1": {
        "right": ['predicted_stage = Stage["PARAMS_NOT_UPDATED"]', 'predicted_stage = "PARAMS_NOT_UPDATED"'],
        "wrong": [
            "predicted_stage = Stage.GRAD_MISSING",
            "predicted_stage = Stage.OK",
            "predicted_stage = Stage.GRADS_ACCUMULATING",
        ],
    },
    "13.2": {
        "right": [
            "class HeldNet(nn.Module):\n"
            "    def __init__(self, layer):\n"
            "        super().__init__()\n"
            '        self.add_module("inner", layer)\n'
            "        self.head = nn.Linear(4, 1)\n"
            "\n"
            "    def forward(self, x):\n"
            "        return self.head(torch.tanh(self.inner(x)))",
            "class HeldNet(nn.Module):\n"
            "    def __init__(self, layer):\n"
            "        super().__init__()\n"
            "        self.body = nn.Sequential(layer, nn.Tanh(), nn.Linear(4, 1))\n"
            "\n"
            "    def forward(self, x):\n"
            "        return self.body(x)",
        ],
        "wrong": [
            "class HeldNet(nn.Module):\n"
            "    def __init__(self, layer):\n"
            "        super().__init__()\n"
            "        self.parts = [layer]\n"
            "        self.head = nn.Linear(4, 1)\n"
            "\n"
            "    def forward(self, x):\n"
            "        return self.head(torch.tanh(self.parts[0](x)))",
            "class HeldNet(nn.Module):\n"
            "    def __init__(self, layer):\n"
            "        super().__init__()\n"
            "        self.layer = layer\n"
            "        self.head = nn.Linear(4, 1)\n"
            "\n"
            "    def forward(self, x):\n"
            "        return self.head(torch.tanh(outside(x)))",
            "class HeldNet(nn.Module):\n"
            "    def __init__(self, layer):\n"
            "        super().__init__()\n"
            "        self.layer = nn.Linear(4, 4)\n"
            "        self.head = nn.Linear(4, 1)\n"
            "\n"
            "    def forward(self, x):\n"
            "        return self.head(torch.tanh(self.layer(x)))",
        ],
    },
}

TABLE["13.1"]["with_extra_lines"] = ["predicted_stage = Stage.PARAMS_NOT_UPDATED\nprint(predicted_stage)"]
TABLE["13.2"]["with_extra_lines"] = [
    "class HeldNet(nn.Module):\n"
    "    def __init__(self, layer):\n"
    "        super().__init__()\n"
    "        self.layer = layer\n"
    "        self.head = nn.Linear(4, 1)\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.head(torch.tanh(self.layer(x)))\n\n\n"
    "tried = HeldNet(nn.Linear(4, 4))\n"
    "tried(torch.randn(2, 4)).sum().backward()\n"
    "print(len(list(tried.parameters())))",
]
