"""Answers the lesson 09 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "09.1": {
        "right": ["predicted_x_grad = 48", "predicted_x_grad = 2 * 2 * 12.0"],
        "wrong": ["predicted_x_grad = 24.0", "predicted_x_grad = 12.0", 'predicted_x_grad = "48"'],
    },
    "09.2": {
        "right": [
            "maxima = {}\n\n\ndef record_max(grad):\n    maxima.update(w=grad.abs().max().item())",
            'maxima = {}\nrecord_max = lambda grad: maxima.__setitem__("w", grad.abs().max().item())',
        ],
        "wrong": [
            'maxima = {}\nrecord_max = lambda grad: maxima.setdefault("w", grad.abs().max().item())',
            'maxima = {}\n\n\ndef record_max(grad):\n    maxima["w"] = grad.abs().max()',
            "maxima = {}\n\n\ndef record_max(grad):\n"
            '    maxima["w"] = grad.abs().max().item()\n'
            "    return grad.abs()",
            'maxima = {}\n\n\ndef record_max(grad):\n    maxima["w"] = grad.max().item()',
        ],
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
TABLE["09.2"]["with_extra_lines"] = [  # the learner tries the hook first: maxima already holds a value
    "maxima = {}\n\n\ndef record_max(grad):\n"
    '    maxima["w"] = grad.abs().max().item()\n\n\n'
    "tried = torch.tensor([1.0, -7.0], requires_grad=True)\n"
    "tried.register_hook(record_max)\n"
    "(tried * 2).sum().backward()\n"
    "print(maxima)",
]
TABLE["09.3"]["with_extra_lines"] = [
    TABLE["09.3"]["right"][0] + "\n\n\n"
    "tried, tried_norms = torch.nn.Linear(2, 1), {}\n"
    "for tried_handle in watch_final_norms(tried, tried_norms):\n"
    "    tried(torch.ones(1, 2)).sum().backward()\n"
    "    tried_handle.remove()\n"
    "print(tried_norms)",
]
