"""Answers the lesson 09 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "09.1": {
        "right": ["predicted_x_grad = 48", "predicted_x_grad = 2 * 2 * 12.0"],
        "wrong": ["predicted_x_grad = 24.0", "predicted_x_grad = 12.0", 'predicted_x_grad = "48"'],
    },
}
TABLE["09.3"] = {
    "right": [
        "def watch_final_norms(model, norms):\n"
        "    return [\n"
        "        p.register_post_accumulate_grad_hook(\n"
        "            lambda p, name=name: norms.__setitem__(name, float(p.grad.norm()))\n"
        "        )\n"
        "        for name, p in model.named_parameters()\n"
        "    ]",
    ],
    "wrong": [
        "def watch_final_norms(model, norms):\n"
        "    return [\n"
        "        p.register_hook(lambda g, name=name: norms.__setitem__(name, g.norm().item()))\n"
        "        for name, p in model.named_parameters()\n"
        "    ]",
        "def watch_final_norms(model, norms):\n"
        "    return [\n"
        "        p.register_post_accumulate_grad_hook(\n"
        "            lambda p, name=name: norms.__setitem__(name, p.grad.norm())\n"
        "        )\n"
        "        for name, p in model.named_parameters()\n"
        "    ]",
        "def watch_final_norms(model, norms):\n"
        "    for name, p in model.named_parameters():\n"
        "        p.register_post_accumulate_grad_hook(\n"
        "            lambda p, name=name: norms.__setitem__(name, p.grad.norm().item())\n"
        "        )",
    ],
}

TABLE["09.1"]["with_extra_lines"] = ["predicted_x_grad = 48.0\nprint(predicted_x_grad)"]
TABLE["09.3"]["with_extra_lines"] = [
    TABLE["09.3"]["right"][0] + "\n\n\n"
    "tried, tried_norms = torch.nn.Linear(2, 1), {}\n"
    "for tried_handle in watch_final_norms(tried, tried_norms):\n"
    "    tried(torch.ones(1, 2)).sum().backward()\n"
    "    tried_handle.remove()\n"
    "print(tried_norms)",
]

TABLE["09.2"] = {
    "right": ['harmless = {"e", "c", "b"}', 'harmless = ["b", "c", "e"]', 'harmless = "bce"'],
    "wrong": [
        'harmless = {"b"}',  # append returns None too; a clone has the same values
        'harmless = {"b", "c"}',  # a returned clone replaces the gradient by equal values
        'harmless = {"b", "c", "e", "f"}',  # a scalar cannot replace a (1,) gradient
    ],
    "with_extra_lines": [
        'harmless = {"b", "c", "e"}\n'
        "w2 = torch.tensor([2.0], requires_grad=True)\n"
        "w2.register_hook(lambda g: g.clone())\n"
        "(w2 * 3).backward()\n"
        "print(w2.grad)",
    ],
}
