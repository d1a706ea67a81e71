"""Answers the lesson 01 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "01.1": {
        "right": [
            'fixed_loss = ((model["classifier"](model["encoder"](inputs)) - labels) ** 2).mean()',
            'features = model["encoder"](inputs)\n'
            'fixed_loss = torch.nn.functional.mse_loss(model["classifier"](features), labels)',
        ],
        "wrong": [
            'features = model["encoder"](inputs).detach()\n'
            'fixed_loss = ((model["classifier"](features) - labels) ** 2).mean()',
            'with torch.no_grad():\n    features = model["encoder"](inputs)\n'
            'fixed_loss = ((model["classifier"](features) - labels) ** 2).mean()',
            'features = model["encoder"](inputs)\n'
            'fixed_loss = ((model["classifier"](features) - labels) ** 2).mean().item()',
        ],
    },
    "01.2": {
        "right": ['still_recorded = ["c", "a"]', 'still_recorded = set("ac")'],
        "wrong": [
            'still_recorded = {"a", "b", "c"}',
            'still_recorded = {"a"}',
            'still_recorded = {"a", "c", "d"}',
        ],
    },
}

TABLE["01.1"]["wrong"] += [  # a loss that is not the lesson model's: a new model with the same shapes
    'other = torch.nn.ModuleDict({"encoder": torch.nn.Linear(4, 8), "classifier": torch.nn.Linear(8, 1)})\n'
    'fixed_loss = ((other["classifier"](other["encoder"](inputs)) - labels) ** 2).mean()',
]
TABLE["01.1"]["with_extra_lines"] = [
    'features = model["encoder"](inputs)\n'
    'fixed_loss = ((model["classifier"](features) - labels) ** 2).mean()\n'
    "fixed_loss.backward()\n"
    "print(fixed_loss.item())",
    'fixed_loss = ((model["classifier"](model["encoder"](inputs)) - labels) ** 2).mean()\n'
    "optimizer.zero_grad()\n"
    "fixed_loss.backward()\n"
    "optimizer.step()",
]
TABLE["01.2"]["with_extra_lines"] = ['still_recorded = {"a", "c"}\nprint(sorted(still_recorded))']
