"""Answers the lesson 10 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "10.1": {
        "right": [
            "predicted_return = 5\npredicted_grad = (3 / 5, 4 / 5)",
            "predicted_return, predicted_grad = (3**2 + 4**2) ** 0.5, [0.6, 0.8]",
        ],
        "wrong": [
            "predicted_return = 1.0\npredicted_grad = [0.6, 0.8]",
            "predicted_return = 5.0\npredicted_grad = [3.0, 4.0]",
            "predicted_return = 7.0\npredicted_grad = [0.6, 0.8]",
        ],
    },
}

TABLE["10.1"]["right"].append(
    "predicted_return = torch.tensor(5.0)\npredicted_grad = torch.tensor([0.6, 0.8])"
)
TABLE["10.1"]["with_extra_lines"] = [
    "predicted_return = 5.0\npredicted_grad = [0.6, 0.8]\nprint(predicted_return, predicted_grad)",
]

TABLE["10.2"] = {
    "right": ['clip_after_step = "C"', "clip_after_step = '(c)'"],
    "wrong": ['clip_after_step = "b"', 'clip_after_step = "a"', 'clip_after_step = ["c"]'],
    "with_extra_lines": ['clip_after_step = "c"\nprint(clip_after_step)'],
}


def clipped(*body: str) -> str:
    """An accumulate_and_clip whose body is these lines."""
    head = "def accumulate_and_clip(model, optimizer, batches, max_norm):\n"
    return head + "".join(f"    {line}\n" for line in body)


PARTS = "for xb, yb in batches:"
PART = "    (((model(xb) - yb) ** 2).mean() / len(batches)).backward()"
CLIP = "norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)"

TABLE["10.3"] = {
    "right": [
        clipped(
            "optimizer.zero_grad()",
            "loss = sum(nn.functional.mse_loss(model(xb), yb) for xb, yb in batches) / len(batches)",
            "loss.backward()",
            "total = torch.cat([p.grad.flatten() for p in model.parameters()]).norm()",
            "for p in model.parameters():",
            "    p.grad.mul_(min(1.0, max_norm / (total.item() + 1e-6)))",
            "optimizer.step()",
            "return total.item()",
        ),
        clipped(
            "model.zero_grad()",
            "for i in range(len(batches)):",
            "    x, y = batches[i]",
            "    ((model(x) - y).pow(2).mean() / len(batches)).backward()",
            "before = nn.utils.clip_grad_norm_(model.parameters(), max_norm, error_if_nonfinite=True)",
            "optimizer.step()",
            "return before",
        ),
    ],
    "wrong": [
        clipped("optimizer.zero_grad()", PARTS, PART, "    " + CLIP, "optimizer.step()", "return norm"),
        clipped("optimizer.zero_grad()", PARTS, PART, "optimizer.step()", CLIP, "return norm"),
        clipped("optimizer.zero_grad()", CLIP, PARTS, PART, "optimizer.step()", "return norm"),
        clipped(
            "optimizer.zero_grad()",
            PARTS,
            "    ((model(xb) - yb) ** 2).mean().backward()",
            CLIP,
            "optimizer.step()",
            "return norm",
        ),
        clipped("optimizer.zero_grad()", PARTS, PART, CLIP, "optimizer.step()", "return max_norm"),
    ],
    "with_extra_lines": [
        clipped(
            "optimizer.zero_grad()",
            PARTS,
            PART,
            CLIP,
            "print(f'norm {norm:.3f}')",
            "optimizer.step()",
            "return norm",
        )
    ],
}
