"""Answers the lesson 16 checks must judge: right ones written another way, plausible wrong ones."""

from autograd_course.yourturn.lesson_16 import ACTIVITIES

# every answer to 16.2 is this Function; they differ in the body of backward
TANH_GATE_UP_TO_BACKWARD = (
    "class TanhGate(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x, w):\n"
    "        ctx.save_for_backward(x, w)\n"
    "        return torch.tanh(x * w)\n"
    "\n"
    "    @staticmethod\n"
    "    def backward(ctx, grad):\n"
    "        x, w = ctx.saved_tensors\n"
)

TABLE = {
    "16.1": {
        "right": ["running_mean_moves = not False", "running_mean_moves = model.training"],
        "wrong": ["running_mean_moves = False", 'running_mean_moves = "True"', "running_mean_moves = 1"],
    },
    "16.2": {
        "right": [
            TANH_GATE_UP_TO_BACKWARD + "        d = grad / torch.cosh(x * w) ** 2\n"
            "        return w * d, x * d",
        ],
        "wrong": [
            TANH_GATE_UP_TO_BACKWARD + "        return grad * (1 - torch.tanh(x * w) ** 2) * w",
            TANH_GATE_UP_TO_BACKWARD + "        d = grad * (1 - torch.tanh(x * w) ** 2)\n"
            "        return d * x, d * w",
            TANH_GATE_UP_TO_BACKWARD + "        return grad * w, grad * x",
        ],
    },
}

TABLE["16.1"]["with_extra_lines"] = ["running_mean_moves = True\nprint(running_mean_moves)"]
# the declared solution, then the learner's own try of it (a backward on their own tensor)
TABLE["16.2"]["with_extra_lines"] = [
    next(a.solution for a in ACTIVITIES if a.id == "16.2")
    + "\n\n\ntried_x = torch.ones(2, requires_grad=True)\n"
    "TanhGate.apply(tried_x, torch.ones(2)).sum().backward()\n"
    "print(tried_x.grad)",
]

TABLE["16.3"] = {
    "right": ['twice_ok = {"e", "d", "a"}', 'twice_ok = ["a", "d", "e"]', 'twice_ok = "ade"'],
    "wrong": [
        'twice_ok = {"a", "e"}',  # clone is a recorded operation
        'twice_ok = {"a", "b", "d", "e"}',  # .data is not recorded
        'twice_ok = {"a", "c", "d", "e"}',  # neither is what runs under no_grad
    ],
    "with_extra_lines": ['twice_ok = {"a", "d", "e"}\nprint(len(twice_ok), "of 5")'],
}
