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
