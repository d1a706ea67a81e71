"""Answers the lesson 12 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {}

TABLE["12.1"] = {
    "right": ['passing_checks = {"e", "d"}', 'passing_checks = ["d", "e"]', 'passing_checks = "de"'],
    "wrong": [
        'passing_checks = {"b", "d", "e"}',  # float32 inside a float64 check is still float32
        'passing_checks = {"c", "d", "e"}',  # a float32 layer refuses a float64 input
        'passing_checks = {"d"}',  # check_gradient converts to float64 itself
        'passing_checks = {"a", "d", "e"}',  # float32 finite differences are rounding noise
    ],
    "with_extra_lines": [
        'passing_checks = {"d", "e"}\nprint(torch.autograd.gradcheck(SiLU.apply, (x64,)))',
    ],
}


def softsign(*backward: str) -> str:
    """A FixedSoftsign whose backward body (after unpacking x) is these lines."""
    return (
        "class FixedSoftsign(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        ctx.save_for_backward(x)\n"
        "        return x / (1 + x.abs())\n"
        "\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad_out):\n"
        "        (x,) = ctx.saved_tensors\n" + "".join(f"        {line}\n" for line in backward)
    )


TABLE["12.2"] = {
    "right": [
        softsign("y = x / (1 + x.abs())", "return grad_out * (1 - y.abs()) ** 2"),
        softsign("d = 1 + torch.abs(x)", "return grad_out * (d - x * torch.sign(x)) / d**2"),
        "class FixedSoftsign(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        y = x / (1 + x.abs())\n"
        "        ctx.save_for_backward(y)\n"
        "        return y\n"
        "\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        (y,) = ctx.saved_tensors\n"
        "        return g * (1 - y.abs()).square()\n",
    ],
    "wrong": [
        softsign("return grad_out / (1 + x.abs())"),
        softsign("return grad_out / (1 + x.abs()) ** 2 * torch.sign(x)"),
        softsign("y = x / (1 + x.abs())", "return grad_out * (1 - y**2)"),
        softsign("return grad_out * (1 + x.abs() - x) / (1 + x.abs()) ** 2"),
    ],
    "with_extra_lines": [softsign("print('backward ran')", "return grad_out / (1 + x.abs()) ** 2")],
}
