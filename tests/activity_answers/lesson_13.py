"""Answers the lesson 13 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "13.1": {
        "right": ['predicted_status = GradStatus["FROZEN"]', 'predicted_status = "FROZEN"'],
        "wrong": [
            "predicted_status = GradStatus.NOT_IN_OPTIMIZER",
            "predicted_status = GradStatus.NO_GRAD",
            "predicted_status = GradStatus.OK",
        ],
    },
}

TABLE["13.1"]["with_extra_lines"] = ["predicted_status = GradStatus.FROZEN\nprint(predicted_status)"]

TABLE["13.2"] = {
    "right": ['cuts = {"e", "b"}', 'cuts = ["b", "e"]', 'cuts = "be"'],
    "wrong": [
        'cuts = {"b"}',  # .data has no history either
        'cuts = {"a", "b", "e"}',  # clone is recorded
        'cuts = {"b", "e", "f"}',  # as_tensor of a tensor returns it
    ],
    "with_extra_lines": [
        'cuts = {"b", "e"}\nprint(torch.relu(torch.ones(2, requires_grad=True)).data.requires_grad)',
    ],
}

# every answer to 13.3 is a class with GateNet's three layers; they differ in how forward gates fc1's features
GATE_NET_UP_TO_FORWARD = (
    "class FixedGateNet(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc1 = nn.Linear(4, 8)\n"
    "        self.gate = nn.Linear(4, 8)\n"
    "        self.fc2 = nn.Linear(8, 1)\n"
    "\n"
    "    def forward(self, x):\n"
)
TABLE["13.3"] = {
    "right": [
        GATE_NET_UP_TO_FORWARD + "        soft = torch.sigmoid(self.gate(x))\n"
        "        hard = soft + (soft.round() - soft).detach()  # 0 or 1 forward, sigmoid's slope backward\n"
        "        return self.fc2(torch.relu(self.fc1(x)) * hard)",
        GATE_NET_UP_TO_FORWARD + "        h = torch.relu(self.fc1(x))\n"
        "        return self.fc2(h * (torch.tanh(self.gate(x)) + 1) / 2)",
        GATE_NET_UP_TO_FORWARD + "        return self.fc2(self.gate(x).sigmoid() * self.fc1(x).relu())",
    ],
    "wrong": [
        GATE_NET_UP_TO_FORWARD + "        open_ = torch.sigmoid(self.gate(x)).round().detach()\n"
        "        return self.fc2(torch.relu(self.fc1(x)) * open_)",  # detaching a zero slope leaves none
        GATE_NET_UP_TO_FORWARD + "        open_ = (torch.sigmoid(self.gate(x)) > 0.5).float()\n"
        "        return self.fc2(torch.relu(self.fc1(x)) * open_)",  # a comparison is not recorded at all
        GATE_NET_UP_TO_FORWARD + "        open_ = torch.sigmoid(self.gate(x).round())\n"
        "        return self.fc2(torch.relu(self.fc1(x)) * open_)",  # the staircase is still on the path
        GATE_NET_UP_TO_FORWARD
        + "        return self.fc2(torch.relu(self.fc1(x)))",  # the gate is gone, not fixed
    ],
    "with_extra_lines": [
        GATE_NET_UP_TO_FORWARD
        + "        return self.fc2(torch.relu(self.fc1(x)) * torch.sigmoid(self.gate(x)))\n"
        "\n\n"
        "tried = FixedGateNet()\n"
        "tried_optimizer = torch.optim.Adam(tried.parameters())\n"
        "report = debug_training_step(tried, tried_optimizer, nn.functional.mse_loss, inputs, targets)\n"
        "print(report.classification)",
    ],
}
