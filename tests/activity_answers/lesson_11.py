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
        "def hvp(func, w, vec):\n"
        "    g = torch.autograd.grad(func(w), w, create_graph=True)[0]\n"
        "    return torch.autograd.grad(g, w, grad_outputs=vec)[0]\n",
        "def hvp(func, w, vec):\n"
        "    return torch.func.jvp(torch.func.grad(func), (w.detach(),), (vec,))[1]\n",
        "def hvp(func, w, vec):\n    return torch.autograd.functional.hvp(func, w.detach(), vec)[1]\n",
    ],
    "wrong": [
        "def hvp(func, w, vec):\n"
        "    g = torch.autograd.grad(func(w), w, retain_graph=True)[0]\n"
        "    return torch.autograd.grad(g @ vec, w)[0]\n",
        "def hvp(func, w, vec):\n"
        "    g = torch.autograd.grad(func(w), w, create_graph=True)[0]\n"
        "    return torch.autograd.grad(g.sum(), w)[0]\n",
        "def hvp(func, w, vec):\n    return torch.autograd.grad(func(w), w)[0] * vec\n",
        "def hvp(func, w, vec):\n"
        "    func(w).backward(create_graph=True)\n"
        "    return torch.autograd.grad(w.grad @ vec, w)[0]\n",
        "def hvp(func, w, vec):\n    return torch.autograd.grad(func(w), w)[0]\n",
    ],
    "with_extra_lines": [
        "def hvp(func, w, vec):\n"
        "    (g,) = torch.autograd.grad(func(w), w, create_graph=True)\n"
        "    print('gradient', g.detach())\n"
        "    return torch.autograd.grad(g @ vec, w)[0]\n"
    ],
}
