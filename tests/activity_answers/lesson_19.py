"""Answers the lesson 19 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "19.1": {
        "right": ['second_outcome = "B"', 'second_outcome = " (b) "', 'second_outcome = "abcde"[1]'],
        "wrong": ['second_outcome = "a"', 'second_outcome = "c"', 'second_outcome = "d"'],
        "with_extra_lines": ['second_outcome = "b"\nprint(second_outcome)'],
    },
}

TABLE["19.2"] = {
    "right": [
        "class BesselJ0(torch.autograd.Function):\n"  # the setup_context style
        "    @staticmethod\n"
        "    def forward(z):\n"
        "        return torch.special.bessel_j0(z)\n"
        "\n"
        "    @staticmethod\n"
        "    def setup_context(ctx, inputs, output):\n"
        "        ctx.save_for_backward(inputs[0])\n"
        "\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad_out):\n"
        "        (z,) = ctx.saved_tensors\n"
        "        return grad_out * torch.special.bessel_j1(z).neg()",
        "class BesselJ0(torch.autograd.Function):\n"  # the slope computed in forward, needs_input_grad
        "    @staticmethod\n"
        "    def forward(ctx, z):\n"
        "        ctx.save_for_backward(-torch.special.bessel_j1(z))\n"
        "        return torch.special.bessel_j0(z)\n"
        "\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        if not ctx.needs_input_grad[0]:\n"
        "            return None\n"
        "        (slope,) = ctx.saved_tensors\n"
        "        return g * slope",
    ],
    "wrong": [
        "class BesselJ0(torch.autograd.Function):\n"  # the sign
        "    @staticmethod\n"
        "    def forward(ctx, z):\n"
        "        ctx.save_for_backward(z)\n"
        "        return torch.special.bessel_j0(z)\n"
        "\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        (z,) = ctx.saved_tensors\n"
        "        return g * torch.special.bessel_j1(z)",
        "class BesselJ0(torch.autograd.Function):\n"  # the input kept as a plain attribute
        "    @staticmethod\n"
        "    def forward(ctx, z):\n"
        "        ctx.z = z\n"
        "        return torch.special.bessel_j0(z)\n"
        "\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        return -g * torch.special.bessel_j1(ctx.z)",
        "class BesselJ0(torch.autograd.Function):\n"  # the incoming gradient dropped
        "    @staticmethod\n"
        "    def forward(ctx, z):\n"
        "        ctx.save_for_backward(z)\n"
        "        return torch.special.bessel_j0(z)\n"
        "\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        (z,) = ctx.saved_tensors\n"
        "        return -torch.special.bessel_j1(z)",
    ],
    "with_extra_lines": [
        "class BesselJ0(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, z):\n"
        "        ctx.save_for_backward(z)\n"
        "        return torch.special.bessel_j0(z)\n"
        "\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        (z,) = ctx.saved_tensors\n"
        "        return -g * torch.special.bessel_j1(z)\n"
        "\n\n"
        "probe = torch.tensor([1.0, 2.5], dtype=torch.float64, requires_grad=True)\n"
        "BesselJ0.apply(probe).sum().backward()\n"
        "print(probe.grad)",
    ],
}
