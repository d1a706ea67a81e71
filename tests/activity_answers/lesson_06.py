"""Answers the lesson 06 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "06.1": {
        "right": ["predicted_frozen_count = 0 * 6", "predicted_frozen_count = len([])"],
        "wrong": ["predicted_frozen_count = 4", "predicted_frozen_count = 6", "predicted_frozen_count = 0.0"],
    },
    "06.2": {
        "right": [
            (
                "net_fixed = Classifier().to(device)\n"
                "optimizer_fixed = torch.optim.SGD(net_fixed.parameters(), lr=0.1)"
            ),
            "net_fixed = Classifier()\nnet_fixed.encoder.requires_grad_(True)\n"
            "groups = [{'params': net_fixed.encoder.parameters(), 'lr': 1e-3}]\n"
            "groups.append({'params': net_fixed.head.parameters()})\n"
            "optimizer_fixed = torch.optim.Adam(groups, lr=1e-2)",
        ],
        "wrong": [
            "net_fixed = Classifier()\nnet_fixed.encoder.requires_grad_(False)\n"
            "optimizer_fixed = torch.optim.Adam(net_fixed.parameters(), lr=1e-2)",
            (
                "net_fixed = Classifier()\n"
                "optimizer_fixed = torch.optim.Adam(net_fixed.head.parameters(), lr=1e-2)"
            ),
            (
                "net_fixed = torch.nn.Linear(8, 3)\n"
                "optimizer_fixed = torch.optim.Adam(net_fixed.parameters(), lr=1e-2)"
            ),
            (
                "net_fixed = Classifier()\n"
                "optimizer_fixed = torch.optim.Adam(Classifier().parameters(), lr=1e-2)"
            ),
        ],
    },
}

TABLE["06.1"]["wrong"].remove("predicted_frozen_count = 0.0")
TABLE["06.1"]["right"].append("predicted_frozen_count = 0.0")  # zero written as a float is zero
TABLE["06.1"]["wrong"].append("predicted_frozen_count = None")
TABLE["06.1"]["with_extra_lines"] = ["predicted_frozen_count = 0\nprint(predicted_frozen_count)"]
TABLE["06.2"]["wrong"] += [  # every parameter held, but a step that moves nothing
    "net_fixed = Classifier()\noptimizer_fixed = torch.optim.SGD(net_fixed.parameters(), lr=0)",
    "net_fixed = Classifier()\noptimizer_fixed = torch.optim.Adam(net_fixed.parameters(), lr=0.0)",
]
TABLE["06.2"]["with_extra_lines"] = [
    "net_fixed = Classifier().to(device)\n"
    "optimizer_fixed = torch.optim.Adam(net_fixed.parameters(), lr=1e-2)\n"
    "optimizer_fixed.zero_grad()\n"
    "net_fixed(torch.randn(4, 8)).sum().backward()\n"
    "optimizer_fixed.step()\n"
    "print(parameter_report(net_fixed).frozen)",
]
