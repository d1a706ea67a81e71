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


def entropy(*body: str) -> str:
    """A safe_entropy whose body is these lines."""
    return "def safe_entropy(probs):\n" + "".join(f"    {line}\n" for line in body)


TABLE["07.3"] = {
    "right": [
        entropy("return -(probs * probs.clamp_min(1e-12).log()).sum(dim=1)"),
        entropy("terms = probs * torch.log(probs + (probs == 0).float())", "return -terms.sum(-1)"),
        entropy(
            "positive = probs > 0",
            "return -torch.where(positive, probs * torch.where(positive, probs, 1.0).log(), 0.0).sum(-1)",
        ),
    ],
    "wrong": [
        entropy("return -(probs * probs.log()).sum(-1)"),
        entropy("return -torch.where(probs > 0, probs * probs.log(), 0.0).sum(-1)"),
        entropy("return torch.nan_to_num(-(probs * probs.log()).sum(-1))"),
        entropy("return -(probs * probs.log()).nansum(-1)"),
        entropy("return -torch.special.xlogy(probs, probs).sum(-1)"),
    ],
    "with_extra_lines": [
        entropy(
            "safe = torch.where(probs > 0, probs, 1.0)", "print(safe)", "return -(probs * safe.log()).sum(-1)"
        )
    ],
}
