"""Answers the lesson 16 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "16.1": {
        "right": [
            'keeps_graph = ["penalty", "loss"]',
            'keeps_graph = {"loss", "accuracy", "penalty"} - {"accuracy"}',
        ],
        "wrong": [
            'keeps_graph = {"loss"}',
            'keeps_graph = {"loss", "accuracy", "penalty"}',
            'keeps_graph = {"loss", "grad_norm", "penalty"}',
        ],
    },
    "16.2": {
        "right": [
            "def clipped_step(model, optimizer, scaler, loss):\n"
            "    for p in model.parameters():\n"
            "        p.grad = None\n"
            "    scaler.scale(loss).backward()\n"
            "    scaler.unscale_(optimizer)\n"
            "    torch.nn.utils.clip_grad_norm_(list(model.parameters()), 1.0)\n"
            "    scaler.step(optimizer)\n"
            "    scaler.update()",
        ],
        "wrong": [
            "def clipped_step(model, optimizer, scaler, loss):\n"
            "    optimizer.zero_grad()\n"
            "    scaler.scale(loss).backward()\n"
            "    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n"
            "    scaler.step(optimizer)\n"
            "    scaler.update()",
            "def clipped_step(model, optimizer, scaler, loss):\n"
            "    optimizer.zero_grad()\n"
            "    scaler.scale(loss).backward()\n"
            "    scaler.unscale_(optimizer)\n"
            "    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n"
            "    optimizer.step()",
            "def clipped_step(model, optimizer, scaler, loss):\n"
            "    optimizer.zero_grad()\n"
            "    scaler.scale(loss).backward()\n"
            "    scaler.step(optimizer)\n"
            "    scaler.update()",
        ],
    },
}

TABLE["16.1"]["with_extra_lines"] = ['keeps_graph = {"loss", "penalty"}\nprint(sorted(keeps_graph))']
TABLE["16.2"]["with_extra_lines"] = [
    "def clipped_step(model, optimizer, scaler, loss):\n"
    "    optimizer.zero_grad()\n"
    "    scaler.scale(loss).backward()\n"
    "    scaler.unscale_(optimizer)\n"
    "    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n"
    "    scaler.step(optimizer)\n"
    "    scaler.update()\n\n\n"
    "tried = nn.Linear(4, 3)\n"
    "tried_optimizer = torch.optim.SGD(tried.parameters(), lr=0.1)\n"
    'tried_scaler = torch.amp.GradScaler("cpu")\n'
    "clipped_step(tried, tried_optimizer, tried_scaler, tried(torch.randn(2, 4)).sum())\n"
    "print(tried.weight.grad.norm())",
]
