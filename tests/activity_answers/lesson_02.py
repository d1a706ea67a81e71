"""Answers the lesson 02 checks must judge: right ones written another way, plausible wrong ones."""


def step(*lines: str) -> str:
    """A fixed_step whose body is these lines."""
    return "def fixed_step(model, optimizer, inputs, targets):\n" + "".join(f"    {line}\n" for line in lines)


LOSS = "loss = ((model(inputs) - targets) ** 2).mean()"

TABLE = {
    "02.1": {
        "right": ["predicted_grad_after_5 = 15", "predicted_grad_after_5 = 5 * 3.0"],
        "wrong": [
            "predicted_grad_after_5 = 3.0",
            "predicted_grad_after_5 = 5.0",
            "predicted_grad_after_5 = '15'",
        ],
    },
    "02.2": {
        "right": [
            step(LOSS, "loss.backward()", "optimizer.step()", "optimizer.zero_grad()", "return loss"),
            step("model.zero_grad()", LOSS, "loss.backward()", "optimizer.step()", "return loss"),
            step(
                "for p in model.parameters():",
                "    p.grad = None",
                LOSS,
                "loss.backward()",
                "optimizer.step()",
            ),
        ],
        "wrong": [
            step(LOSS, "loss.backward()", "optimizer.step()", "return loss"),
            step(LOSS, "loss.backward()", "optimizer.zero_grad()", "optimizer.step()", "return loss"),
            step(LOSS, "loss.backward()", "optimizer.zero_grad(set_to_none=False)", "optimizer.step()"),
            step("optimizer.zero_grad()", LOSS, "loss.backward()", "return loss"),
        ],
    },
}
