"""Answers the lesson 01 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "01.2": {
        "right": [
            'still_recorded = ["c", "a"]',
            'still_recorded = set("ac")',
            'still_recorded = frozenset("ac")',
        ],
        "wrong": [
            'still_recorded = {"a", "b", "c"}',
            'still_recorded = {"a"}',
            'still_recorded = {"a", "c", "d"}',
        ],
    },
}

TABLE["01.2"]["with_extra_lines"] = ['still_recorded = {"a", "c"}\nprint(sorted(still_recorded))']

TABLE["01.1"] = {
    "right": [
        'gets_grad = ["classifier.bias", "features", "classifier.weight"]',
        'gets_grad = {"features"} | {"classifier." + p for p in ("weight", "bias")}',
        'gets_grad = frozenset(["features", "classifier.weight", "classifier.bias"])',
    ],
    "wrong": [
        'gets_grad = {"features", "encoder.weight", "encoder.bias", "classifier.weight", "classifier.bias"}',
        'gets_grad = {"classifier.weight", "classifier.bias"}',  # features is a leaf that requires grad
        'gets_grad = {"features"}',
        'gets_grad = {"features", "classifier"}',
    ],
    "with_extra_lines": [
        'gets_grad = {"features", "classifier.weight", "classifier.bias"}\nprint(sorted(gets_grad))',
    ],
}


def l1_step(penalty: str, zero: bool = True) -> str:
    """A fixed_l1_step whose L1 penalty is this expression."""
    return (
        "def fixed_l1_step(model, optimizer, x, y):\n"
        + ("    optimizer.zero_grad()\n" if zero else "")
        + "    loss = ((model(x) - y) ** 2).mean()\n"
        + f"    l1 = {penalty}\n"
        + "    (loss + 0.01 * l1).backward()\n"
        + "    optimizer.step()\n"
    )


TABLE["01.3"] = {
    "right": [
        l1_step("torch.stack([p.abs().sum() for p in model.parameters()]).sum()"),
        l1_step("torch.cat([p.flatten() for p in model.parameters()]).norm(p=1)"),
        "def fixed_l1_step(model, optimizer, x, y):\n"
        "    optimizer.zero_grad(set_to_none=True)\n"
        "    penalty = 0\n"
        "    for p in model.parameters():\n"
        "        penalty = penalty + p.abs().sum()\n"
        "    total = nn.functional.mse_loss(model(x), y) + penalty / 100\n"
        "    total.backward()\n"
        "    optimizer.step()\n"
        "    return total.item()\n",
    ],
    "wrong": [
        l1_step("torch.tensor(sum(p.abs().sum().item() for p in model.parameters()))"),
        l1_step("torch.tensor([p.abs().sum().item() for p in model.parameters()], requires_grad=True).sum()"),
        l1_step("sum(p.detach().abs().sum() for p in model.parameters())"),
        l1_step("sum(p.abs().sum() for p in model.parameters())", zero=False),
        l1_step("sum(p.abs().sum() for n, p in model.named_parameters() if 'weight' in n)"),
    ],
    "with_extra_lines": [l1_step("sum(p.abs().sum() for p in model.parameters())") + "print(fixed_l1_step)"],
}
