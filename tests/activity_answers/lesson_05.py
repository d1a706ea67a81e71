"""Answers the lesson 05 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "05.1": {
        "right": [
            "@torch.no_grad()\ndef fixed_evaluate(model, batch):\n    return model(batch).mean().item()",
            "def fixed_evaluate(model, batch):\n    with torch.set_grad_enabled(False):\n"
            "        return float(model(batch).mean())",
            "def fixed_evaluate(model, batch):\n    with torch.inference_mode():\n"
            "        return model(batch).mean().item()",
        ],
        "wrong": [
            "def fixed_evaluate(model, batch):\n    torch.set_grad_enabled(False)\n"
            "    return model(batch).mean().item()",
            "def fixed_evaluate(model, batch):\n    torch.set_grad_enabled(False)\n"
            "    value = model(batch).mean().item()\n    torch.set_grad_enabled(True)\n    return value",
            "def fixed_evaluate(model, batch):\n    return model(batch).mean().item()",
            "def fixed_evaluate(model, batch):\n    with torch.no_grad():\n"
            "        return model(batch).mean()",
        ],
    },
    "05.2": {
        "right": [
            "eval_dropout_active = False\neval_requires_grad = True",
            "eval_requires_grad, eval_dropout_active = True, False",
        ],
        "wrong": [
            "eval_requires_grad = False\neval_dropout_active = False",
            "eval_requires_grad = True\neval_dropout_active = True",
            "eval_requires_grad = 'yes'\neval_dropout_active = False",
        ],
    },
}

TABLE["05.1"]["with_extra_lines"] = [
    "def fixed_evaluate(model, batch):\n"
    "    with torch.no_grad():\n"
    "        return model(batch).mean().item()\n\n\n"
    "print(fixed_evaluate(torch.nn.Linear(3, 1), torch.randn(4, 3)))\n"
    "print(fixed_evaluate(torch.nn.Linear(3, 1), torch.randn(4, 3)))",
]
TABLE["05.2"]["with_extra_lines"] = [
    "eval_requires_grad = True\neval_dropout_active = False\nprint(eval_requires_grad, eval_dropout_active)",
]


def validation(*body: str) -> str:
    """A validate whose body is these lines."""
    return "def validate(net, pairs):\n" + "".join(f"    {line}\n" for line in body)


TABLE["05.3"] = {
    "right": [
        validation(
            "mode = net.training",
            "net.eval()",
            "try:",
            "    with torch.inference_mode():",
            "        total = sum(nn.functional.mse_loss(net(xb), yb) for xb, yb in pairs)",
            "finally:",
            "    net.train(mode)",
            "return total / len(pairs)",
        ),
        validation(
            "modes = {m: m.training for m in net.modules()}",
            "net.eval()",
            "with torch.no_grad():",
            "    out = torch.stack([((net(xb) - yb) ** 2).mean() for xb, yb in pairs]).mean().item()",
            "for m, training in modes.items():",
            "    m.training = training",
            "return out",
        ),
    ],
    "wrong": [
        validation(
            "net.eval()",
            "with torch.no_grad():",
            "    losses = [((net(xb) - yb) ** 2).mean().item() for xb, yb in pairs]",
            "return sum(losses) / len(losses)",
        ),
        validation(
            "net.eval()",
            "with torch.no_grad():",
            "    losses = [((net(xb) - yb) ** 2).mean().item() for xb, yb in pairs]",
            "net.train()",
            "return sum(losses) / len(losses)",
        ),
        validation(
            "with torch.no_grad():",
            "    losses = [((net(xb) - yb) ** 2).mean().item() for xb, yb in pairs]",
            "return sum(losses) / len(losses)",
        ),
        validation(
            "mode = net.training",
            "net.eval()",
            "losses = [((net(xb) - yb) ** 2).mean().item() for xb, yb in pairs]",
            "net.train(mode)",
            "return sum(losses) / len(losses)",
        ),
    ],
    "with_extra_lines": [
        validation(
            "mode = net.training",
            "net.eval()",
            "with torch.no_grad():",
            "    losses = [((net(xb) - yb) ** 2).mean().item() for xb, yb in pairs]",
            "print(losses)",
            "net.train(mode)",
            "return sum(losses) / len(losses)",
        )
    ],
}
