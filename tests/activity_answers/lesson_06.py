"""Answers the lesson 06 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "06.1": {
        "right": ["predicted_frozen_count = 0 * 6", "predicted_frozen_count = len([])"],
        "wrong": ["predicted_frozen_count = 4", "predicted_frozen_count = 6", "predicted_frozen_count = 0.0"],
    },
}

TABLE["06.1"]["wrong"].remove("predicted_frozen_count = 0.0")
TABLE["06.1"]["right"].append("predicted_frozen_count = 0.0")  # zero written as a float is zero
TABLE["06.1"]["wrong"].append("predicted_frozen_count = None")
TABLE["06.1"]["with_extra_lines"] = ["predicted_frozen_count = 0\nprint(predicted_frozen_count)"]

TABLE["06.2"] = {
    "right": ['after_unfreezing = "B"', "after_unfreezing = 'b '"],
    "wrong": ['after_unfreezing = "c"', 'after_unfreezing = "a"', 'after_unfreezing = "bc"'],
    "with_extra_lines": ['after_unfreezing = "b"\nprint("my answer:", after_unfreezing)'],
}

TABLE["06.3"] = {
    "right": [
        "def unfreeze(module, optimizer):\n"
        "    for p in module.parameters():\n"
        "        p.requires_grad = True\n"
        "    optimizer.add_param_group({'params': [p for p in module.parameters()], 'lr': 1e-3})\n",
        "def unfreeze(module, optimizer):\n"
        "    params = list(module.requires_grad_().parameters())\n"
        "    optimizer.param_groups[0]['params'].extend(params)\n",
        "unfreeze = lambda module, optimizer: optimizer.add_param_group("
        "{'params': list(module.requires_grad_(True).parameters())})\n",
    ],
    "wrong": [
        "def unfreeze(module, optimizer):\n    module.requires_grad_(True)\n",
        "def unfreeze(module, optimizer):\n"
        "    optimizer.add_param_group({'params': list(module.parameters())})\n",
        "def unfreeze(module, optimizer):\n"
        "    module.requires_grad = True\n"
        "    optimizer.add_param_group({'params': list(module.parameters())})\n",
        "def unfreeze(module, optimizer):\n"
        "    module.requires_grad_(True)\n"
        "    optimizer = torch.optim.Adam(module.parameters(), lr=1e-2)\n",
    ],
    "with_extra_lines": [
        "def unfreeze(module, optimizer):\n"
        "    module.requires_grad_(True)\n"
        "    optimizer.add_param_group({'params': list(module.parameters())})\n"
        "    print('unfrozen', sum(p.numel() for p in module.parameters()))\n"
    ],
}
