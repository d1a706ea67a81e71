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


def watcher(register: str, hook: str) -> str:
    """A watch_input_grad that registers `hook` (a lambda's source) with module.<register>."""
    return f"def watch_input_grad(module, store):\n    return module.{register}({hook})"


TABLE["21.3"] = {
    "right": [
        watcher("register_full_backward_hook", "lambda m, gi, go: store.append(gi[0].detach().clone())"),
        # a tensor hook on each input, put there by a forward pre-hook: the same gradient, another road
        "def watch_input_grad(module, store):\n"
        "    def hook_the_input(mod, args):\n"
        "        args[0].register_hook(store.append)\n"
        "\n"
        "    return module.register_forward_pre_hook(hook_the_input)",
    ],
    "wrong": [
        # the deprecated hook: the last operation's grad_inputs, and a warning
        watcher("register_backward_hook", "lambda m, gi, go: store.append(gi[0])"),
        # the gradient with respect to the output, not the input
        watcher("register_full_backward_hook", "lambda m, gi, go: store.append(go[0])"),
        # a pre-hook runs before the module's backward: it knows only grad_output
        watcher("register_full_backward_pre_hook", "lambda m, go: store.append(go[0])"),
        # the whole tuple, not the tensor
        watcher("register_full_backward_hook", "lambda m, gi, go: store.append(gi)"),
    ],
    "with_extra_lines": [
        watcher("register_full_backward_hook", "lambda m, gi, go: store.append(gi[0])") + "\n\n\n"
        "tried, tried_store = nn.Tanh(), []\n"
        "tried_handle = watch_input_grad(tried, tried_store)\n"
        "tried(torch.ones(2, requires_grad=True)).sum().backward()\n"
        "tried_handle.remove()\n"
        "print(tried_store)",
    ],
}
