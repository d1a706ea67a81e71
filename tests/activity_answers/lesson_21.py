"""Answers the lesson 21 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "21.1": {
        "right": ["predicted_x_grad = 7", "predicted_x_grad = 3 * 2 * 1.0 + 1"],
        "wrong": [
            "predicted_x_grad = 3.0",  # as if neither hook changed anything
            "predicted_x_grad = 6.0",  # the node hook's return value ignored
            "predicted_x_grad = 8.0",  # the hook's +1 taken before the prehook's doubling
            'predicted_x_grad = "7"',  # a string, not a number
        ],
        "with_extra_lines": ["predicted_x_grad = 7.0\nprint(predicted_x_grad)"],
    },
}

TABLE["21.2"] = {
    "right": [
        # a named function, an explicit loop, and a comment on why None stays
        "def clip_incoming(module, limit):\n"
        "    def hook(mod, grad_output):\n"
        "        clipped = []\n"
        "        for g in grad_output:\n"
        "            # None: an output the loss did not use\n"
        "            clipped.append(g if g is None else torch.clamp(g, min=-limit, max=limit))\n"
        "        return tuple(clipped)\n"
        "\n"
        "    return module.register_full_backward_pre_hook(hook)",
        # a lambda, clipping by where
        "def clip_incoming(module, limit):\n"
        "    return module.register_full_backward_pre_hook(\n"
        "        lambda m, gs: tuple(\n"
        "            g if g is None else torch.where(g.abs() > limit, g.sign() * limit, g) for g in gs\n"
        "        )\n"
        "    )",
    ],
    "wrong": [
        # returns one tensor: read as a sequence of rows
        "def clip_incoming(module, limit):\n"
        "    return module.register_full_backward_pre_hook(lambda m, gs: gs[0].clamp(-limit, limit))",
        # forgets that an unused output's gradient is None
        "def clip_incoming(module, limit):\n"
        "    return module.register_full_backward_pre_hook(\n"
        "        lambda m, gs: tuple(g.clamp(-limit, limit) for g in gs)\n"
        "    )",
        # clips the gradients of the parameters, not the gradient flowing in
        "def clip_incoming(module, limit):\n"
        "    handles = [p.register_hook(lambda g: g.clamp(-limit, limit)) for p in module.parameters()]\n"
        "    return handles[0]",
        # a full backward hook: its return value replaces grad_input, what the module computed
        "def clip_incoming(module, limit):\n"
        "    return module.register_full_backward_hook(\n"
        "        lambda m, gi, go: tuple(None if g is None else g.clamp(-limit, limit) for g in gi)\n"
        "    )",
        # clips only the first output's gradient
        "def clip_incoming(module, limit):\n"
        "    return module.register_full_backward_pre_hook(\n"
        "        lambda m, gs: (gs[0].clamp(-limit, limit), *gs[1:])\n"
        "    )",
    ],
    "with_extra_lines": [
        "def clip_incoming(module, limit):\n"
        "    def clip(module, grad_output):\n"
        "        return tuple(g.clamp(-limit, limit) if g is not None else None for g in grad_output)\n"
        "\n"
        "    return module.register_full_backward_pre_hook(clip)\n"
        "\n\n"
        "tried = nn.Linear(3, 2)\n"
        "tried_handle = clip_incoming(tried, 0.5)\n"
        "(tried(torch.ones(1, 3, requires_grad=True)) * 10).sum().backward()\n"
        "tried_handle.remove()\n"
        "print(tried.weight.grad)",
    ],
}
