"""Answers the lesson 12 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {}

TABLE["12.1"] = {
    "right": ['exact_ways = {"d", "b"}', 'exact_ways = ["b", "d"]', 'exact_ways = "bd"'],
    "wrong": [
        'exact_ways = {"a", "b", "d"}',  # a float32 difference quotient is off by about 1e-5
        'exact_ways = {"b"}',  # dual numbers are forward mode too
        'exact_ways = {"b", "c", "d"}',  # backward has nothing recorded under no_grad
    ],
    "with_extra_lines": [
        'exact_ways = {"b", "d"}\n'
        "with torch.no_grad():\n"
        "    print(jvp(lambda t: (torch.exp(2 * t) * torch.sin(3 * t)).sum(), (x32,), (u,)))",
    ],
}

TABLE["12.2"] = {
    "right": [
        "forward_passes, backward_passes = 2, 5",
        "forward_passes = 2.0\nbackward_passes = 5",
        "import numpy as np\nforward_passes = np.int64(2)\nbackward_passes = len(range(5))",
    ],
    "wrong": [
        "forward_passes = 5\nbackward_passes = 2",  # swapped: a forward-mode pass is a column, not a row
        "forward_passes = 1\nbackward_passes = 1",  # one pass gives one column or one row
        "forward_passes = 2\nbackward_passes = 1",  # one backward pass gives one row of five
        "forward_passes = 10\nbackward_passes = 10",  # not one pass per element of the Jacobian
    ],
    "with_extra_lines": [
        "forward_passes = 2\nbackward_passes = 5\nprint(forward_passes, backward_passes)",
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


TABLE["12.3"] = {
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
