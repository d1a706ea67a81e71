"""Answers the lesson 10 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "10.1": {
        "right": [
            "predicted_return = 5\npredicted_grad = (3 / 5, 4 / 5)",
            "predicted_return, predicted_grad = (3**2 + 4**2) ** 0.5, [0.6, 0.8]",
        ],
        "wrong": [
            "predicted_return = 1.0\npredicted_grad = [0.6, 0.8]",
            "predicted_return = 5.0\npredicted_grad = [3.0, 4.0]",
            "predicted_return = 7.0\npredicted_grad = [0.6, 0.8]",
        ],
    },
    "10.2": {
        "right": [
            "def clipped_step(model, optimizer, x, y):\n"
            "    optimizer.zero_grad(set_to_none=True)\n"
            "    torch.nn.functional.mse_loss(model(x), y).backward()\n"
            "    total = torch.nn.utils.clip_grad_norm_(list(model.parameters()), 1.0)\n"
            "    optimizer.step()\n"
            "    return total",
        ],
        "wrong": [
            "def clipped_step(model, optimizer, x, y):\n"
            "    optimizer.zero_grad()\n"
            "    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n"
            "    ((model(x) - y) ** 2).mean().backward()\n"
            "    optimizer.step()\n"
            "    return norm",
            "def clipped_step(model, optimizer, x, y):\n"
            "    optimizer.zero_grad()\n"
            "    ((model(x) - y) ** 2).mean().backward()\n"
            "    optimizer.step()\n"
            "    return torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)",
            "def clipped_step(model, optimizer, x, y):\n"
            "    optimizer.zero_grad()\n"
            "    ((model(x) - y) ** 2).mean().backward()\n"
            "    optimizer.step()\n"
            "    return torch.tensor(1.0)",
        ],
    },
}

TABLE["10.1"]["right"].append(
    "predicted_return = torch.tensor(5.0)\npredicted_grad = torch.tensor([0.6, 0.8])"
)
TABLE["10.1"]["with_extra_lines"] = [
    "predicted_return = 5.0\npredicted_grad = [0.6, 0.8]\nprint(predicted_return, predicted_grad)",
]
TABLE["10.2"]["with_extra_lines"] = [
    "def clipped_step(model, optimizer, x, y):\n"
    "    optimizer.zero_grad()\n"
    "    loss = ((model(x) - y) ** 2).mean()\n"
    "    loss.backward()\n"
    "    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n"
    "    optimizer.step()\n"
    "    return norm\n\n\n"
    "tried = torch.nn.Linear(4, 1)\n"
    "tried_optimizer = torch.optim.SGD(tried.parameters(), lr=0.1)\n"
    "print(clipped_step(tried, tried_optimizer, torch.randn(8, 4), torch.randn(8, 1)))",
]
