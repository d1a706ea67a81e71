"""Answers the lesson 05 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "05.1": {
        "right": [
            "fixed_mse = lambda outputs, targets: ((outputs - targets) ** 2).mean()",
            "fixed_mse = torch.nn.functional.mse_loss",
            "def fixed_mse(outputs, targets):\n    return (outputs - targets).pow(2).mean()",
        ],
        "wrong": [
            (
                "@torch.no_grad()\n"
                "def fixed_mse(outputs, targets):\n"
                "    return ((outputs - targets) ** 2).mean()"
            ),
            (
                "@torch.enable_grad()\n"
                "def fixed_mse(outputs, targets):\n"
                "    return ((outputs - targets) ** 2).mean()"
            ),
            "def fixed_mse(outputs, targets):\n    return ((outputs - targets) ** 2).sum()",
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
