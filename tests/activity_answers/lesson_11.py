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
        "def directional_derivative(f, x, u):\n"
        "    with fwAD.dual_level():\n"
        "        return float(fwAD.unpack_dual(f(fwAD.make_dual(x, u))).tangent)",
        "directional_derivative = lambda f, x, u: torch.func.jvp(f, (x,), (u,))[1]",
    ],
    "wrong": [
        "def directional_derivative(f, x, u, eps=1e-3):\n"
        "    return ((f(x + eps * u) - f(x - eps * u)) / (2 * eps)).item()",
        "def directional_derivative(f, x, u):\n"
        "    leaf = x.clone().requires_grad_()\n"
        "    f(leaf).backward()\n"
        "    return (leaf.grad * u).sum().item()",
        "def directional_derivative(f, x, u):\n    return jvp(f, (x,), (u,))[0].item()",
    ],
}
