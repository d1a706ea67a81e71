"""Answers the lesson 15 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "15.1": {
        "right": ["running_mean_moves = not False", "running_mean_moves = model.training"],
        "wrong": ["running_mean_moves = False", 'running_mean_moves = "True"', "running_mean_moves = 1"],
    },
    "15.2": {
        "right": [
            "class TanhGate(torch.autograd.Function):\n"
            "    @staticmethod\n"
            "    def forward(ctx, x, w):\n"
            "        ctx.save_for_backward(x, w)\n"
            "        return torch.tanh(x * w)\n"
            "\n"
            "    @staticmethod\n"
            "    def backward(ctx, grad):\n"
            "        x, w = ctx.saved_tensors\n"
            "        d = grad / torch.cosh(x * w) ** 2\n"
            "        return w * d, x * d",
        ],
        "wrong": [
            "class TanhGate(torch.autograd.Function):\n"
            "    @staticmethod\n"
            "    def forward(ctx, x, w):\n"
            "        ctx.save_for_backward(x, w)\n"
            "        return torch.tanh(x * w)\n"
            "\n"
            "    @staticmethod\n"
            "    def backward(ctx, grad):\n"
            "        x, w = ctx.saved_tensors\n"
            "        return grad * (1 - torch.tanh(x * w) ** 2) * w",
            "class TanhGate(torch.autograd.Function):\n"
            "    @staticmethod\n"
            "    def forward(ctx, x, w):\n"
            "        ctx.save_for_backward(x, w)\n"
            "        return torch.tanh(x * w)\n"
            "\n"
            "    @staticmethod\n"
            "    def backward(ctx, grad):\n"
            "        x, w = ctx.saved_tensors\n"
            "        d = grad * (1 - torch.tanh(x * w) ** 2)\n"
            "        return d * x, d * w",
            "class TanhGate(torch.autograd.Function):\n"
            "    @staticmethod\n"
            "    def forward(ctx, x, w):\n"
            "        ctx.save_for_backward(x, w)\n"
            "        return torch.tanh(x * w)\n"
            "\n"
            "    @staticmethod\n"
            "    def backward(ctx, grad):\n"
            "        x, w = ctx.saved_tensors\n"
            "        return grad * w, grad * x",
        ],
    },
}
