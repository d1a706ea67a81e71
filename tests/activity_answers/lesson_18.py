"""Answers the lesson 18 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "18.1": {
        "right": ["unused_indices = [6, 7, 2, 3]", "unused_indices = [*range(2, 4), *range(6, 8)]"],
        "wrong": ["unused_indices = [4, 5]", "unused_indices = [2, 3]", "unused_indices = [2, 3, 4, 5]"],
    },
    "18.3": {
        "right": [
            'layers_status = GradStatus["OK"]',
            'layers_status = next(s for s in GradStatus if s.name == "OK")',
        ],
        "wrong": [
            "layers_status = GradStatus.NO_GRAD",
            "layers_status = GradStatus.FROZEN",
            'layers_status = "OK"',
        ],
    },
}

TABLE["18.1"]["with_extra_lines"] = ["unused_indices = [2, 3, 6, 7]\nprint(unused_indices)"]
TABLE["18.3"]["with_extra_lines"] = ["layers_status = GradStatus.OK\nprint(layers_status)"]

TABLE["18.2"] = {
    "right": [
        "def loss_for(net, batch, which):\n"
        "    h = net.trunk(batch)\n"
        "    others = sum(head(h).sum() for head in net.heads.values())\n"
        "    return net.heads[which](h).sum() + 0 * others",
        "def loss_for(net, batch, which):\n"
        "    return net(batch, which) + 0.0 * sum((w * w).sum() for w in net.parameters())",
    ],
    "wrong": [
        "def loss_for(net, batch, which):\n    return net(batch, which)",  # the other heads get no .grad
        "def loss_for(net, batch, which):\n"
        "    return net(batch, which) + 1e-3 * sum(w.sum() for w in net.parameters())",  # moves all gradients
        "def loss_for(net, batch, which):\n"
        '    return net(batch, which) + 0 * net.heads["aux"](net.trunk(batch)).sum()',  # skips "extra"
    ],
    "with_extra_lines": [
        "def loss_for(net, batch, which):\n"
        "    everything = sum(w.sum() for w in net.parameters())\n"
        "    return net(batch, which) + 0.0 * everything\n"
        "\n\n"
        "probe = MultiTask()\n"
        'loss_for(probe, features, "main").backward()\n'
        'print(probe.heads["aux"].weight.grad.abs().max())',
    ],
}
