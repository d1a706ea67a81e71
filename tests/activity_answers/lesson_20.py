"""Answers the lesson 20 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {}

TABLE["20.1"] = {
    "right": ['exact_ways = {"d", "b"}', 'exact_ways = ["b", "d"]', 'exact_ways = "bd"'],
    "wrong": [
        'exact_ways = {"a", "b", "d"}',  # a float32 difference quotient is off by about 1e-5
        'exact_ways = {"b"}',  # dual numbers are forward mode too
        'exact_ways = {"b", "c", "d"}',  # backward has nothing recorded under no_grad
    ],
    "with_extra_lines": [
        'exact_ways = {"b", "d"}\n'
        "with torch.no_grad():\n"
        "    print(jvp(lambda t: (torch.exp(2 * t) * torch.sin(3 * t)).sum(), (x32,), (u,)))",
    ],
}

TABLE["20.2"] = {
    "right": [
        "forward_passes, backward_passes = 2, 5",
        "forward_passes = 2.0\nbackward_passes = 5",
        "import numpy as np\nforward_passes = np.int64(2)\nbackward_passes = len(range(5))",
    ],
    "wrong": [
        "forward_passes = 5\nbackward_passes = 2",  # swapped: a forward-mode pass is a column, not a row
        "forward_passes = 1\nbackward_passes = 1",  # one pass gives one column or one row
        "forward_passes = 2\nbackward_passes = 1",  # one backward pass gives one row of five
        "forward_passes = 10\nbackward_passes = 10",  # not one pass per element of the Jacobian
    ],
    "with_extra_lines": [
        "forward_passes = 2\nbackward_passes = 5\nprint(forward_passes, backward_passes)",
    ],
}


def critic_step(*body: str) -> str:
    """A critic_step whose body, after its points and out, is these lines."""
    return (
        "def critic_step(critic, optimizer, points):\n"
        "    optimizer.zero_grad()\n"
        "    points = points.clone().requires_grad_()\n"
        "    out = critic(points)\n" + "".join(f"    {line}\n" for line in body)
    )


LEAKY = (
    "out.sum().backward(create_graph=True)",
    "penalty = ((points.grad.norm(dim=1) - 1) ** 2).mean()",
    "optimizer.zero_grad()",
    "((out**2).mean() + 10 * penalty).backward()",
    "optimizer.step()",
)

TABLE["20.3"] = {
    "right": [
        # keep backward(create_graph=True), and break the cycle on the input points once the penalty is built
        critic_step(*LEAKY[:2], "points.grad = None", *LEAKY[2:]),
        critic_step(
            "(g,) = torch.autograd.grad(out, points, grad_outputs=torch.ones_like(out), create_graph=True)",
            "loss = out.pow(2).mean() + 10 * (torch.linalg.vector_norm(g, dim=1) - 1).pow(2).mean()",
            "loss.backward()",
            "optimizer.step()",
        ),
    ],
    "wrong": [
        critic_step(*LEAKY),  # the leaky step itself: points.grad holds the graph
        critic_step(*LEAKY, "optimizer.zero_grad()"),  # resets the critic's grads, not the points'
        critic_step(  # not recorded: the penalty is a constant
            "(g,) = torch.autograd.grad(out.sum(), points, retain_graph=True)",
            "penalty = ((g.norm(dim=1) - 1) ** 2).mean()",
            "((out**2).mean() + 10 * penalty).backward()",
            "optimizer.step()",
        ),
        critic_step(  # the final backward records too: every parameter's .grad holds a graph
            "(g,) = torch.autograd.grad(out.sum(), points, create_graph=True)",
            "penalty = ((g.norm(dim=1) - 1) ** 2).mean()",
            "((out**2).mean() + 10 * penalty).backward(create_graph=True)",
            "optimizer.step()",
        ),
        critic_step(  # recorded, then cut off by detach()
            "(g,) = torch.autograd.grad(out.sum(), points, create_graph=True)",
            "penalty = ((g.detach().norm(dim=1) - 1) ** 2).mean()",
            "((out**2).mean() + 10 * penalty).backward()",
            "optimizer.step()",
        ),
    ],
    "with_extra_lines": [
        critic_step(
            "(g,) = torch.autograd.grad(out.sum(), points, create_graph=True)",
            "penalty = ((g.norm(dim=1) - 1) ** 2).mean()",
            "print('penalty', penalty.item())",
            "((out**2).mean() + 10 * penalty).backward()",
            "optimizer.step()",
        ),
    ],
}
