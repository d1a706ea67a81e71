"""Answers the lesson 11 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "11.1": {
        "right": ["predicted_vjp = (2, 0, -6)", "predicted_vjp = [2 * 1 * 1.0, 2 * 2 * 0.0, 2 * 3 * -1.0]"],
        "wrong": [
            "predicted_vjp = [2.0, 4.0, 6.0]",
            "predicted_vjp = [-2.0, 0.0, 6.0]",
            "predicted_vjp = [1.0, 0.0, -1.0]",
        ],
    },
    "11.2": {
        "right": [
            "input_gradient = lambda out, points: torch.autograd.grad(\n"
            "    out, points, grad_outputs=torch.ones_like(out), create_graph=True\n"
            ")[0]",
        ],
        "wrong": [
            "def input_gradient(out, points):\n    return torch.autograd.grad(out.sum(), points)[0]",
            "def input_gradient(out, points):\n"
            "    return torch.autograd.grad(out.sum(), points, retain_graph=True)[0]",
            "def input_gradient(out, points):\n"
            "    return torch.autograd.grad(out.mean(), points, create_graph=True)[0]",
        ],
    },
}
TABLE["11.3"] = {
    "right": [
        "import torch.autograd.forward_ad as fwAD\n\n\n"
        "def directional_derivative(func, at, along_dir):\n"
        "    with fwAD.dual_level():\n"
        "        return float(fwAD.unpack_dual(func(fwAD.make_dual(at, along_dir))).tangent)",
        "directional_derivative = lambda func, at, along_dir: torch.func.jvp(func, (at,), (along_dir,))[1]",
    ],
    "wrong": [
        "def directional_derivative(func, at, along_dir, step=1e-3):\n"
        "    return ((func(at + step * along_dir) - func(at - step * along_dir)) / (2 * step)).item()",
        "def directional_derivative(func, at, along_dir):\n"
        "    leaf_at = at.clone().requires_grad_()\n"
        "    func(leaf_at).backward()\n"
        "    return (leaf_at.grad * along_dir).sum().item()",
        "def directional_derivative(func, at, along_dir):\n"
        "    return torch.func.jvp(func, (at,), (along_dir,))[0].item()",
    ],
}

TABLE["11.1"]["right"].append("predicted_vjp = torch.tensor([2.0, 0.0, -6.0])")
TABLE["11.1"]["with_extra_lines"] = ["predicted_vjp = [2.0, 0.0, -6.0]\nprint(predicted_vjp)"]
TABLE["11.2"]["with_extra_lines"] = [
    "def input_gradient(out, points):\n"
    "    (grad,) = torch.autograd.grad(out.sum(), points, create_graph=True)\n"
    "    return grad\n\n\n"
    "tried = torch.randn(2, 3, requires_grad=True)\n"
    "print(input_gradient((tried**2).sum(dim=1), tried))",
]
TABLE["11.3"]["wrong"] += [  # exact, but reverse mode: a backward pass, not forward mode
    "def directional_derivative(func, at, along_dir):\n"
    "    return (torch.func.grad(func)(at) * along_dir).sum().item()",
    "def directional_derivative(func, at, along_dir):\n"
    "    with torch.enable_grad():\n"
    "        leaf = at.clone().requires_grad_()\n"
    "        func(leaf).backward()\n"
    "    return (leaf.grad * along_dir).sum().item()",
    "def directional_derivative(func, at, along_dir):\n"
    "    return (torch.func.jacrev(func)(at) @ along_dir).item()",
]
TABLE["11.3"]["right"].append(
    "def directional_derivative(func, at, along_dir):\n"
    "    return (torch.func.jacfwd(func)(at) @ along_dir).item()"
)
TABLE["11.3"]["with_extra_lines"] = [
    "def directional_derivative(func, at, along_dir):\n"
    "    along = jvp(func, (at,), (along_dir,))[1]\n"
    "    return along.item()\n\n\n"
    "print(directional_derivative(lambda t: (t**2).sum(), torch.ones(3), torch.ones(3)))",
]
