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
