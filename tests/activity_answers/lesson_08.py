"""Answers the lesson 08 checks must judge: right ones written another way, plausible wrong ones."""

import torch

TABLE = {
    "08.2": {
        "right": [
            'anomaly_node = "SqrtBackward"',
            "anomaly_node = run_with_anomaly(\n"
            "    lambda: (torch.sqrt(torch.tensor([0.0, 4.0], requires_grad=True)) * 0).sum().backward()\n"
            ')[0].split("\'")[1]',
        ],
        "wrong": [
            'anomaly_node = "PowBackward0"',
            'anomaly_node = "MulBackward0"',
            "anomaly_node = None",
        ],
    },
}

TABLE["08.2"]["with_extra_lines"] = ['anomaly_node = "SqrtBackward0"\nprint(anomaly_node)']

TABLE["08.1"] = {
    "right": [
        "nan_pairs = [7, 5]",
        "g = vmap(grad(pair_loss), in_dims=(None, 0, 0, 0))(\n"
        "    params, points_b[left_b], points_b[right_b], torch.ones(8, device=device)\n"
        ")\n"
        'nan_pairs = [i for i in range(8) if not torch.isfinite(g["weight"][i]).all()]',
        "nan_pairs = torch.tensor([5, 7])",
    ],
    "wrong": [
        "nan_pairs = [0, 3, 4, 7]",  # the rows, not the pairs
        "nan_pairs = [5]",
        "nan_pairs = []",
        "nan_pairs = list(range(8))",
        "nan_pairs = [1, 3]",
    ],
    "with_extra_lines": [
        "g = vmap(grad(pair_loss), in_dims=(None, 0, 0, 0))(\n"
        "    params, points_b[left_b], points_b[right_b], torch.ones(8, device=device)\n"
        ")\n"
        'nan_pairs = (~torch.isfinite(g["weight"]).flatten(1).all(dim=1)).nonzero().flatten().tolist()\n'
        "print(nan_pairs, points_b[left_b[nan_pairs]])",
    ],
}

TABLE["08.3"] = {
    "right": ['refused = {"d", "a"}', 'refused = ["a", "d"]', 'refused = "ad"'],
    "wrong": [
        'refused = {"a"}',  # float() of a tensor asks for one Python number per sample
        'refused = {"a", "b", "d"}',  # randomness="same" allows the noise
        'refused = {"a", "d", "e"}',  # torch.where is a tensor operation
    ],
    "with_extra_lines": [
        'refused = {"a", "d"}\n'
        "clamped = vmap(grad(lambda w, xi: (w * xi).sum().clamp(min=0)), in_dims=(None, 0))\n"
        "print(clamped(torch.ones(4, device=device), xs).shape)",
    ],
}


def angle(*body: str) -> str:
    """A safe_angle whose body is these lines."""
    return "def safe_angle(rows, others):\n" + "".join(f"    {line}\n" for line in body)


COS = "cos = (rows * others).sum(-1) / (rows.norm(dim=-1) * others.norm(dim=-1))"
CLAMP_TO_ONE = angle(COS, "return torch.acos(cos.clamp(-1, 1))")


def clamp_passes_its_bounds_gradient() -> bool:
    """torch 2.13 passes clamp's gradient at a bound (1 at x = max); 2.14 stops it there (0). Clamping the
    cosine to exactly ±1 lets acos's infinite slope through as NaN in the first, and cuts it off in the
    second."""
    x = torch.ones(1, requires_grad=True)
    x.clamp(-1, 1).sum().backward()
    return x.grad.item() == 1.0


TABLE["08.4"] = {
    "right": [
        angle("return torch.atan2(torch.linalg.cross(rows, others).norm(dim=-1), (rows * others).sum(-1))"),
        angle(
            "cos = nn.functional.cosine_similarity(rows, others, dim=-1)",
            "eps = 1e-6",
            "return torch.acos(torch.clamp(cos, -1 + eps, 1 - eps))",
        ),
    ],
    "wrong": [
        angle(COS, "return torch.acos(cos)"),
        angle(COS, "return torch.nan_to_num(torch.acos(cos))"),
        angle(COS, "return torch.acos(cos.detach().clamp(-0.999, 0.999))"),
    ],
    "with_extra_lines": [angle(COS, "print(cos)", "return torch.acos(cos.clamp(-1 + 1e-7, 1 - 1e-7))")],
}
# By behaviour, as the check judges: a NaN gradient where clamp passes its bounds' gradient, finite where not.
TABLE["08.4"]["wrong" if clamp_passes_its_bounds_gradient() else "right"].append(CLAMP_TO_ONE)
