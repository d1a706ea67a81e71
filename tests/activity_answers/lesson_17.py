"""Answers the lesson 17 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "17.1": {
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
}

TABLE["17.1"]["with_extra_lines"] = ['keeps_graph = {"loss", "penalty"}\nprint(sorted(keeps_graph))']

TABLE["17.2"] = {
    "right": ["moved = 2.0**-16", "moved = 1.5259e-05"],
    "wrong": ["moved = 0.5", "moved = 1.0", "moved = 0.5 / 2**16", 'moved = "2**-16"'],
    "with_extra_lines": [
        "moved = 1 / 65536\n"
        "p = nn.Parameter(torch.zeros(2))\n"
        "optimizer = torch.optim.SGD([p], lr=1.0)\n"
        "scaler = torch.amp.GradScaler(device.type, init_scale=2.0**16)\n"
        "scaler.scale((p * torch.tensor([0.3, 0.4], device=device)).sum()).backward()\n"
        "scaler.unscale_(optimizer)\n"
        "print(p.grad.norm())",
    ],
}

TABLE["17.3"] = {
    "right": ['raises = {"d", "a"}', 'raises = ["a", "d"]', 'raises = "ad"'],
    "wrong": [
        'raises = {"a"}',  # opt_g.step() writes G's weights, which d_loss_through_g saved
        'raises = {"a", "c", "d"}',  # d_loss on fake.detach() never reaches G
        'raises = {"a", "b", "d"}',  # both backward calls before either step: nothing was written yet
    ],
    "with_extra_lines": ['raises = {"a", "d"}\nprint(sorted(raises))'],
}

TABLE["17.4"] = {
    "right": [
        "def accumulate(net, batches):\n"
        "    n_all = sum(len(xb) for xb, _ in batches)\n"
        "    for xb, yb in batches:\n"
        "        (((net(xb) - yb) ** 2).sum() / n_all).backward()",
        "def accumulate(net, batches):\n"
        "    n_all = sum(yb.shape[0] for _, yb in batches)\n"
        "    for xb, yb in batches:\n"
        '        part = nn.functional.mse_loss(net(xb), yb, reduction="sum")\n'
        "        part.div(n_all).backward()",
    ],
    "wrong": [
        "def accumulate(net, batches):\n"
        "    for xb, yb in batches:\n"
        "        (((net(xb) - yb) ** 2).mean() / len(batches)).backward()",  # right only for equal sizes
        "def accumulate(net, batches):\n"
        "    for xb, yb in batches:\n"
        "        ((net(xb) - yb) ** 2).mean().backward()",  # a sum of means, as many times too large
        "def accumulate(net, batches):\n"
        "    n_all = sum(len(xb) for xb, _ in batches)\n"
        "    for xb, yb in batches:\n"
        "        net.zero_grad()\n"
        "        (((net(xb) - yb) ** 2).sum() / n_all).backward()",  # only the last micro-batch is left
    ],
    "with_extra_lines": [
        "def accumulate(net, batches):\n"
        "    n_all = sum(len(xb) for xb, _ in batches)\n"
        "    for xb, yb in batches:\n"
        "        (((net(xb) - yb) ** 2).mean() * len(xb) / n_all).backward()\n"
        "\n\n"
        "probe_net = nn.Linear(4, 1)\n"
        "probe_batches = [(torch.ones(3, 4), torch.zeros(3, 1)), (torch.ones(1, 4), torch.zeros(1, 1))]\n"
        "accumulate(probe_net, probe_batches)\n"
        "print(probe_net.bias.grad)",
    ],
}
