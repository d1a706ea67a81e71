"""Answers the lesson 22 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {}

TABLE["22.1"] = {
    "right": [
        "allreduce_calls = 2 * 3",
        "allreduce_calls = 6.0",
        "import numpy as np\nallreduce_calls = np.int64(6)",
    ],
    "wrong": [
        "allreduce_calls = 2",  # as if no_sync wrapped the first micro-batches
        "allreduce_calls = 8",  # as if no_sync suppressed nothing
        "allreduce_calls = 0",  # as if no_sync covered the whole loop
        "allreduce_calls = 3",  # one step only
    ],
    "with_extra_lines": ["allreduce_calls = 6\nprint(allreduce_calls)"],
}


def step(*body: str) -> str:
    """A train_step whose body is these lines."""
    return "def train_step(ddp, optimizer, micro_batches):\n" + "".join(f"    {line}\n" for line in body)


MSE = "(nn.functional.mse_loss(ddp(x), y) * len(x) / total).backward()"  # weighted by the micro-batch's size
TOTAL = "total = sum(len(x) for x, _ in micro_batches)"

TABLE["22.2"] = {
    "right": [
        "from contextlib import nullcontext\n\n\n"
        + step(
            "optimizer.zero_grad(set_to_none=True)",
            "n, samples = len(micro_batches), torch.tensor([len(y) for _, y in micro_batches])",
            "weights = samples / samples.sum()",
            "for i, (x, y) in enumerate(micro_batches):",
            "    context = ddp.no_sync() if i < n - 1 else nullcontext()",
            "    with context:",
            "        loss = nn.functional.mse_loss(ddp(x), y) * weights[i]",
            "        loss.backward()",
            "optimizer.step()",
        ),
        step(  # squared errors summed, divided by the number of elements of the whole batch
            "for p in ddp.parameters():",
            "    p.grad = None",
            "count = sum(y.numel() for _, y in micro_batches)",
            "for x, y in micro_batches[:-1]:",
            "    with ddp.no_sync():",
            "        ((ddp(x) - y) ** 2).sum().div(count).backward()",
            "x, y = micro_batches[-1]",
            "((ddp(x) - y) ** 2).sum().div(count).backward()",
            "optimizer.step()",
        ),
    ],
    "wrong": [
        step("optimizer.zero_grad()", TOTAL, "for x, y in micro_batches:", f"    {MSE}", "optimizer.step()"),
        step(  # everything inside no_sync: nothing is ever averaged across processes
            "optimizer.zero_grad()",
            TOTAL,
            "with ddp.no_sync():",
            "    for x, y in micro_batches:",
            f"        {MSE}",
            "optimizer.step()",
        ),
        step(  # forward outside no_sync: the backward still all-reduces
            "optimizer.zero_grad()",
            TOTAL,
            "for i, (x, y) in enumerate(micro_batches):",
            "    loss = nn.functional.mse_loss(ddp(x), y) * len(x) / total",
            "    if i < len(micro_batches) - 1:",
            "        with ddp.no_sync():",
            "            loss.backward()",
            "    else:",
            "        loss.backward()",
            "optimizer.step()",
        ),
        step(  # equal weights: the short last micro-batch counts as much as a full one
            "optimizer.zero_grad()",
            "*first, (x_n, y_n) = micro_batches",
            "with ddp.no_sync():",
            "    for x, y in first:",
            "        (nn.functional.mse_loss(ddp(x), y) / len(micro_batches)).backward()",
            "(nn.functional.mse_loss(ddp(x_n), y_n) / len(micro_batches)).backward()",
            "optimizer.step()",
        ),
        step(  # one all-reduce, but the sum of three means is not the whole batch's mean
            "optimizer.zero_grad()",
            "*first, (x_n, y_n) = micro_batches",
            "with ddp.no_sync():",
            "    for x, y in first:",
            "        nn.functional.mse_loss(ddp(x), y).backward()",
            "nn.functional.mse_loss(ddp(x_n), y_n).backward()",
            "optimizer.step()",
        ),
        step(  # no zero_grad: the second step adds the first step's gradient
            TOTAL,
            "*first, (x_n, y_n) = micro_batches",
            "with ddp.no_sync():",
            "    for x, y in first:",
            f"        {MSE}",
            "x, y = x_n, y_n",
            MSE,
            "optimizer.step()",
        ),
    ],
    "with_extra_lines": [
        step(
            "optimizer.zero_grad()",
            TOTAL,
            "*first, last = micro_batches",
            "with ddp.no_sync():",
            "    for x, y in first:",
            f"        {MSE}",
            "x, y = last",
            MSE,
            "print('step after', len(micro_batches), 'micro-batches')",
            "optimizer.step()",
        )
        + "\n\nprint(train_step)",
    ],
}
