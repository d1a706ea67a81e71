"""Answers the lesson 04 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "04.1": {
        "right": ["predicted_version = 1 + 1 + 1", "predicted_version = int('3')"],
        "wrong": ["predicted_version = 2", "predicted_version = 4", "predicted_version = 3.0"],
    },
    "04.2": {
        "right": [
            "x = torch.tensor([0.5, -1.0], requires_grad=True)\nfixed_out = 2 * torch.sigmoid(x * 3)",
            "x = torch.tensor([0.5, -1.0], requires_grad=True)\nfixed_out = torch.sigmoid(x * 3).mul(2)",
            "x = torch.tensor([0.5, -1.0], requires_grad=True)\nout = torch.sigmoid(x * 3)\n"
            "fixed_out = out.clone().mul_(2)",
        ],
        "wrong": [
            (
                "x = torch.tensor([0.5, -1.0], requires_grad=True)\n"
                "fixed_out = torch.sigmoid(x * 3)\n"
                "fixed_out.mul_(2)"
            ),
            "x = torch.tensor([0.5, -1.0], requires_grad=True)\nfixed_out = torch.sigmoid(x * 3)",
            "x = torch.tensor([0.5, -1.0])\nfixed_out = 2 * torch.sigmoid(x * 3)",
            (
                "x = torch.tensor([0.5, -1.0], requires_grad=True)\n"
                "fixed_out = torch.sigmoid(x * 3).detach() * 2"
            ),
        ],
    },
}

PROBE = (
    "layers = [nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 512), nn.Sigmoid(), nn.Linear(512, 4)]\n"
    "probe = nn.Sequential(*layers)\n"
)
TABLE["04.3"] = {
    "right": [
        "largest_saved = (128, 512)",
        PROBE + "_, rows = saved_for_backward(probe, lambda: probe(torch.randn(128, 16)).pow(2).mean())\n"
        "largest_saved = torch.Size(rows[0][0])",
    ],
    "wrong": [
        "largest_saved = (512, 64)",
        "largest_saved = (128, 4)",
        "largest_saved = (128, 64)",
        "largest_saved = 512",
    ],
}

TABLE["04.1"]["wrong"].remove("predicted_version = 3.0")
TABLE["04.1"]["right"].append("predicted_version = 3.0")  # a whole number written as a float is that number
TABLE["04.1"]["wrong"].append('predicted_version = "3"')
TABLE["04.1"]["with_extra_lines"] = ["predicted_version = 3\nprint(predicted_version)"]
TABLE["04.2"]["with_extra_lines"] = [  # the learner checks the fix their own way: backward on it
    "x = torch.tensor([0.5, -1.0], requires_grad=True)\n"
    "fixed_out = torch.sigmoid(x * 3) * 2\n"
    "fixed_out.sum().backward()\n"
    "print(x.grad)",
    "x = torch.tensor([0.5, -1.0], requires_grad=True)\n"
    "fixed_out = torch.sigmoid(x * 3) * 2\n"
    "print(torch.autograd.grad(fixed_out.sum(), x))",
]
TABLE["04.3"]["with_extra_lines"] = ["largest_saved = (128, 512)\nprint(largest_saved)"]
