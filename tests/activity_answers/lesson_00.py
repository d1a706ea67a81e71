"""Answers the lesson 00 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "00.1": {
        "right": [
            "fixed_w = torch.tensor([1.0, 2.0], requires_grad=True)",
            "fixed_w = torch.tensor([1.0, 2.0]).requires_grad_()",
            "fixed_w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))",
        ],
        "wrong": [
            "fixed_w = torch.tensor([1.0, 2.0])",
            "fixed_w = torch.tensor([1.0, 2.0], requires_grad=True) * 1",
            "fixed_w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)",
        ],
    },
    "00.2": {
        "right": ["predicted_grad = 12", "predicted_grad = 3 * 2.0**2"],
        "wrong": ["predicted_grad = 8.0", "predicted_grad = 6.0", "predicted_grad = True"],
    },
}

# Right answers beside the learner's own extra lines: a check judges the answer, not the habits around it.
TABLE["00.1"]["with_extra_lines"] = [
    "fixed_w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "(fixed_w**2).sum().backward()\n"
    "print(fixed_w.grad)",
]
TABLE["00.2"]["right"].append("predicted_grad = torch.tensor(12.0)")
TABLE["00.2"]["with_extra_lines"] = ["predicted_grad = 12.0\nprint(predicted_grad)\npredicted_grad"]
