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

TABLE["18.4"] = {
    "right": [
        "def output_grad_norms(net, xs):\n"
        "    seen = {}\n"
        "    handles = [\n"
        "        child.register_full_backward_pre_hook(\n"
        "            lambda module, go, label=label: seen.update({label: float(go[0].norm())})\n"
        "        )\n"
        "        for label, child in net.named_children()\n"
        "    ]\n"
        "    net(xs).sum().backward()\n"
        "    for one in handles:\n"
        "        one.remove()\n"
        "    return seen",
        "def output_grad_norms(net, xs):\n"
        "    seen, handles = {}, []\n"
        "\n"
        "    def watcher(label):\n"
        "        def on_output(module, args, output):\n"
        "            output.register_hook(lambda g: seen.__setitem__(label, g.norm().item()))\n"
        "\n"
        "        return on_output\n"
        "\n"
        "    for label, child in net.named_children():\n"
        "        handles.append(child.register_forward_hook(watcher(label)))\n"
        "    try:\n"
        "        net(xs).sum().backward()\n"
        "    finally:\n"
        "        for one in handles:\n"
        "            one.remove()\n"
        "    return seen",
    ],
    "wrong": [
        "def output_grad_norms(net, xs):\n"  # the hooks stay on the model
        "    seen = {}\n"
        "    for label, child in net.named_children():\n"
        "        child.register_full_backward_hook(\n"
        "            lambda module, gi, go, label=label: seen.__setitem__(label, go[0].norm().item())\n"
        "        )\n"
        "    net(xs).sum().backward()\n"
        "    return seen",
        "def output_grad_norms(net, xs):\n"  # grad_input: the gradient with respect to the input
        "    seen = {}\n"
        "    handles = [\n"
        "        child.register_full_backward_hook(\n"
        "            lambda module, gi, go, label=label: seen.__setitem__(\n"
        "                label, 0.0 if gi[0] is None else gi[0].norm().item()\n"
        "            )\n"
        "        )\n"
        "        for label, child in net.named_children()\n"
        "    ]\n"
        "    net(xs).sum().backward()\n"
        "    for one in handles:\n"
        "        one.remove()\n"
        "    return seen",
        "def output_grad_norms(net, xs):\n"  # the weights' gradients, not the outputs'
        "    net(xs).sum().backward()\n"
        "    return {\n"
        "        label: sum(wt.grad.norm().item() for wt in child.parameters())\n"
        "        for label, child in net.named_children()\n"
        "    }",
    ],
    "with_extra_lines": [
        "def output_grad_norms(net, xs):\n"
        "    seen, handles = {}, []\n"
        "    for label, child in net.named_children():\n"
        "        hook = lambda module, gi, go, label=label: seen.__setitem__(label, go[0].norm().item())\n"
        "        handles.append(child.register_full_backward_hook(hook))\n"
        "    try:\n"
        "        net(xs).sum().backward()\n"
        "    finally:\n"
        "        for one in handles:\n"
        "            one.remove()\n"
        "    return seen\n"
        "\n\n"
        "print(output_grad_norms(nn.Sequential(nn.Linear(4, 2), nn.ReLU()), torch.ones(3, 4)))",
    ],
}
