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
}


def micro(*lines: str) -> str:
    """A fixed_micro_step whose body is these lines."""
    head = "def fixed_micro_step(model, optimizer, inputs, targets, chunks=4):\n"
    return head + "".join(f"    {line}\n" for line in lines)


PARTS = "for x_part, y_part in zip(inputs.chunk(chunks), targets.chunk(chunks)):"
PART_LOSS = "    ((((model(x_part) - y_part) ** 2).mean()) / chunks).backward()"
TABLE["02.3"] = {
    "right": [
        micro("optimizer.zero_grad()", PARTS, PART_LOSS, "optimizer.step()"),
        micro(PARTS, PART_LOSS, "optimizer.step()", "optimizer.zero_grad()"),
        micro("model.zero_grad()", PARTS, PART_LOSS, "optimizer.step()"),
    ],
    "wrong": [
        micro(PARTS, "    optimizer.zero_grad()", PART_LOSS, "optimizer.step()"),
        micro(PARTS, PART_LOSS, "optimizer.step()"),
        micro(
            "optimizer.zero_grad()",
            PARTS,
            "    ((model(x_part) - y_part) ** 2).mean().backward()",
            "optimizer.step()",
        ),
        micro("optimizer.zero_grad()", PARTS, PART_LOSS, "    optimizer.step()"),
    ],
}

TABLE["02.1"]["right"].append("predicted_grad_after_5 = torch.tensor([15.0])")
TABLE["02.1"]["with_extra_lines"] = ["predicted_grad_after_5 = 15.0\nprint(predicted_grad_after_5)"]
TRY_STEP = (
    "probe_model = torch.nn.Linear(3, 1)\n"
    "probe_optimizer = torch.optim.SGD(probe_model.parameters(), lr=0.1)\n"
    "print({name}(probe_model, probe_optimizer, torch.randn(8, 3), torch.randn(8, 1)))\n"
)
TABLE["02.3"]["with_extra_lines"] = [
    micro("optimizer.zero_grad()", PARTS, PART_LOSS, "optimizer.step()")
    + TRY_STEP.format(name="fixed_micro_step"),
]

TABLE["02.2"] = {
    "right": ['step_sees = "B"', "step_sees = ' (b) '"],
    "wrong": ['step_sees = "a"', 'step_sees = "d"', 'step_sees = "c"', "step_sees = 2"],
    "with_extra_lines": ['step_sees = "b"\nprint(step_sees)'],
}
