"""Answers the lesson 17 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "17.1": {
        "right": [
            'keeps_graph = ["penalty", "loss"]',
            'keeps_graph = {"loss", "accuracy", "penalty"} - {"accuracy"}',
        ],
        "wrong": [
            'keeps_graph = {"loss"}',
            'keeps_graph = {"loss", "accuracy", "penalty"}',
            'keeps_graph = {"loss", "grad_norm", "penalty"}',
        ],
    },
}

TABLE["17.1"]["with_extra_lines"] = ['keeps_graph = {"loss", "penalty"}\nprint(sorted(keeps_graph))']

TABLE["17.2"] = {
    "right": ["moved = 2.0**-16", "moved = 1.5259e-05"],
    "wrong": ["moved = 0.5", "moved = 1.0", "moved = 0.5 / 2**16", 'moved = "2**-16"'],
    "with_extra_lines": [
        "moved = 1 / 65536\n"
        "p = nn.Parameter(torch.zeros(2))\n"
        "optimizer = torch.optim.SGD([p], lr=1.0)\n"
        "scaler = torch.amp.GradScaler(device.type, init_scale=2.0**16)\n"
        "scaler.scale((p * torch.tensor([0.3, 0.4], device=device)).sum()).backward()\n"
        "scaler.unscale_(optimizer)\n"
        "print(p.grad.norm())",
    ],
}

TABLE["17.3"] = {
    "right": ['raises = {"d", "a"}', 'raises = ["a", "d"]', 'raises = "ad"'],
    "wrong": [
        'raises = {"a"}',  # opt_g.step() writes G's weights, which d_loss_through_g saved
        'raises = {"a", "c", "d"}',  # d_loss on fake.detach() never reaches G
        'raises = {"a", "b", "d"}',  # both backward calls before either step: nothing was written yet
    ],
    "with_extra_lines": ['raises = {"a", "d"}\nprint(sorted(raises))'],
}
