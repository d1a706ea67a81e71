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
