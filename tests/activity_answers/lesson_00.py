"""Answers the lesson 00 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "00.1": {
        "right": [
            "fixed_w = torch.tensor([1.0, 2.0], requires_grad=True)",
            "fixed_w = torch.tensor([1.0, 2.0]).requires_grad_()",
            "fixed_w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))",
        ],
        "wrong": [
            "fixed_w = torch.tensor([1.0, 2.0])",
            "fixed_w = torch.tensor([1.0, 2.0], requires_grad=True) * 1",
            "fixed_w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)",
        ],
    },
    "00.2": {
        "right": ["predicted_grad = 12", "predicted_grad = 3 * 2.0**2"],
        "wrong": ["predicted_grad = 8.0", "predicted_grad = 6.0", "predicted_grad = True"],
    },
}

# Right answers beside the learner's own extra lines: a check judges the answer, not the habits around it.
TABLE["00.1"]["with_extra_lines"] = [
    "fixed_w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "(fixed_w**2).sum().backward()\n"
    "print(fixed_w.grad)",
]
TABLE["00.2"]["right"].append("predicted_grad = torch.tensor(12.0)")
TABLE["00.2"]["with_extra_lines"] = ["predicted_grad = 12.0\nprint(predicted_grad)\npredicted_grad"]

TABLE["00.3"] = {
    "right": [
        "def count_ops(t):\n"
        "    def visit(fn, seen):\n"
        "        if fn is None or fn in seen or type(fn).__name__ == 'AccumulateGrad':\n"
        "            return seen\n"
        "        seen.add(fn)\n"
        "        for child, _ in fn.next_functions:\n"
        "            visit(child, seen)\n"
        "        return seen\n"
        "    return len(visit(t.grad_fn, set()))\n",
        "def count_ops(t):\n"
        "    found, frontier = [], [t.grad_fn] if t.grad_fn is not None else []\n"
        "    while frontier:\n"
        "        node = frontier.pop(0)\n"
        "        if any(node is f for f in found) or getattr(node, 'variable', None) is not None:\n"
        "            continue\n"
        "        found.append(node)\n"
        "        frontier += [c for c, _ in node.next_functions if c is not None]\n"
        "    return len(found)\n",
    ],
    "wrong": [
        "def count_ops(t):\n"
        "    def visit(fn):\n"
        "        if fn is None or hasattr(fn, 'variable'):\n"
        "            return 0\n"
        "        return 1 + sum(visit(child) for child, _ in fn.next_functions)\n"
        "    return visit(t.grad_fn)\n",
        "def count_ops(t):\n"
        "    seen, todo = set(), [t.grad_fn]\n"
        "    while todo:\n"
        "        fn = todo.pop()\n"
        "        if fn is None or fn in seen:\n"
        "            continue\n"
        "        seen.add(fn)\n"
        "        todo.extend(child for child, _ in fn.next_functions)\n"
        "    return len(seen)\n",
        "def count_ops(t):\n"
        "    n, fn = 0, t.grad_fn\n"
        "    while fn is not None and not hasattr(fn, 'variable'):\n"
        "        n, fn = n + 1, fn.next_functions[0][0]\n"
        "    return n\n",
    ],
    "with_extra_lines": [
        "def count_ops(t):\n"
        "    seen, todo = set(), [t.grad_fn]\n"
        "    while todo:\n"
        "        fn = todo.pop()\n"
        "        if fn is None or fn in seen or hasattr(fn, 'variable'):\n"
        "            continue\n"
        "        print(type(fn).__name__)\n"
        "        seen.add(fn)\n"
        "        todo.extend(child for child, _ in fn.next_functions)\n"
        "    return len(seen)\n"
    ],
}
