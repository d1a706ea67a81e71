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
}

TABLE["11.1"]["right"].append("predicted_vjp = torch.tensor([2.0, 0.0, -6.0])")
TABLE["11.1"]["with_extra_lines"] = ["predicted_vjp = [2.0, 0.0, -6.0]\nprint(predicted_vjp)"]

TABLE["11.2"] = {
    "right": ['again = {"c", "a"}', 'again = ["a", "c"]', 'again = "ac"'],
    "wrong": [
        'again = {"a", "b", "c"}',  # retain_graph does not record the backward pass
        'again = {"a"}',  # sin's derivative is recorded too
        'again = {"a", "c", "d"}',  # detach drops the record
    ],
    "with_extra_lines": [
        'again = {"a", "c"}\n'
        "x2 = torch.tensor([2.0], requires_grad=True)\n"
        "(first,) = torch.autograd.grad(x2**3, x2, create_graph=True)\n"
        "print(torch.autograd.grad(first.sum(), x2))",
    ],
}

TABLE["11.3"] = {
    "right": [
        "def hvp(f, w, v):\n"
        "    g = torch.autograd.grad(f(w), w, create_graph=True)[0]\n"
        "    return torch.autograd.grad(g, w, grad_outputs=v)[0]\n",
        "def hvp(f, w, v):\n    return torch.func.jvp(torch.func.grad(f), (w.detach(),), (v,))[1]\n",
        "def hvp(f, w, v):\n    return torch.autograd.functional.hvp(f, w.detach(), v)[1]\n",
    ],
    "wrong": [
        "def hvp(f, w, v):\n"
        "    g = torch.autograd.grad(f(w), w, retain_graph=True)[0]\n"
        "    return torch.autograd.grad(g @ v, w)[0]\n",
        "def hvp(f, w, v):\n"
        "    g = torch.autograd.grad(f(w), w, create_graph=True)[0]\n"
        "    return torch.autograd.grad(g.sum(), w)[0]\n",
        "def hvp(f, w, v):\n    return torch.autograd.grad(f(w), w)[0] * v\n",
        "def hvp(f, w, v):\n"
        "    f(w).backward(create_graph=True)\n"
        "    return torch.autograd.grad(w.grad @ v, w)[0]\n",
        "def hvp(f, w, v):\n    return torch.autograd.grad(f(w), w)[0]\n",
    ],
    "with_extra_lines": [
        "def hvp(f, w, v):\n"
        "    (g,) = torch.autograd.grad(f(w), w, create_graph=True)\n"
        "    print('gradient', g.detach())\n"
        "    return torch.autograd.grad(g @ v, w)[0]\n"
    ],
}
