"""Answers the lesson 07 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "07.1": {
        "right": [
            'predicted_sqrt_grad = (float("inf"), 1 / 4)',
            "predicted_sqrt_grad = [float('+inf'), 0.25]",
        ],
        "wrong": [
            'predicted_sqrt_grad = [float("nan"), 0.25]',
            "predicted_sqrt_grad = [0.0, 0.25]",
            'predicted_sqrt_grad = [float("inf"), 0.5]',
        ],
    },
}

TABLE["07.1"]["with_extra_lines"] = ['predicted_sqrt_grad = [float("inf"), 0.25]\nprint(predicted_sqrt_grad)']

TABLE["07.2"] = {
    "right": ['finite_grad = {"d", "c"}', 'finite_grad = ["c", "d"]', 'finite_grad = "cd"'],
    "wrong": [
        'finite_grad = {"a", "c", "d"}',  # a mask multiplied before sqrt: 0 × inf at v = 0
        'finite_grad = {"c"}',  # misses d: where before sqrt selects, its backward never multiplies
        'finite_grad = {"b", "c", "d"}',  # the mask after sqrt multiplies 0 by inf
    ],
    "with_extra_lines": [
        'finite_grad = {"c", "d"}\n'
        "v = torch.tensor([-4.0, 0.0, 0.25, 9.0], requires_grad=True)\n"
        "torch.sqrt(torch.where(v > 0, v, 0.0)).sum().backward()\n"
        "print(v.grad)",
    ],
}
