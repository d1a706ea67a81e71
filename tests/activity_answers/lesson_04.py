"""Answers the lesson 04 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "04.1": {
        "right": ["predicted_version = 1 + 1 + 1", "predicted_version = int('3')"],
        "wrong": ["predicted_version = 2", "predicted_version = 4", "predicted_version = 3.0"],
    },
}

PROBE = (
    "layers = [nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 512), nn.Sigmoid(), nn.Linear(512, 4)]\n"
    "probe = nn.Sequential(*layers)\n"
)
TABLE["04.3"] = {
    "right": [
        "largest_saved = (128, 512)",
        PROBE + "_, rows = saved_for_backward(probe, lambda: probe(torch.randn(128, 16)).pow(2).mean())\n"
        "largest_saved = torch.Size(rows[0][0])",
    ],
    "wrong": [
        "largest_saved = (512, 64)",
        "largest_saved = (128, 4)",
        "largest_saved = (128, 64)",
        "largest_saved = 512",
    ],
}

TABLE["04.1"]["wrong"].remove("predicted_version = 3.0")
TABLE["04.1"]["right"].append("predicted_version = 3.0")  # a whole number written as a float is that number
TABLE["04.1"]["wrong"].append('predicted_version = "3"')
TABLE["04.1"]["with_extra_lines"] = ["predicted_version = 3\nprint(predicted_version)"]
TABLE["04.3"]["with_extra_lines"] = ["largest_saved = (128, 512)\nprint(largest_saved)"]

TABLE["04.2"] = {
    "right": [
        "breaks_backward = {'e', 'd', 'b'}",
        'breaks_backward = ["b", "d", "e"]',
        'breaks_backward = "bde"',
    ],
    "wrong": [
        'breaks_backward = {"b", "d"}',  # relu also saves its output
        'breaks_backward = {"a", "b", "c", "d", "e"}',  # every in-place write
        'breaks_backward = {"b", "c", "d", "e"}',  # x**2 saves x, not its output
    ],
    "with_extra_lines": [
        'breaks_backward = {"b", "d", "e"}\n'
        "x = torch.tensor([0.5, -1.0], requires_grad=True)\n"
        "with expect_error(RuntimeError, 'inplace'):\n"
        "    torch.exp(x).mul_(2).sum().backward()",
    ],
}


def block(*body: str) -> str:
    """A fixed_block whose body is these lines."""
    return "def fixed_block(xb, wb):\n" + "".join(f"    {line}\n" for line in body)


TABLE["04.4"] = {
    "right": [
        block(
            "hid = torch.tanh(xb @ wb)",
            "keep = torch.ones_like(hid)",
            "keep[:, 0] = 0",
            "return (hid * keep).sum()",
        ),
        block("return torch.tanh(xb @ wb)[:, 1:].sum()"),
        block(
            "hid = torch.tanh(xb @ wb)",
            "return torch.cat([torch.zeros_like(hid[:, :1]), hid[:, 1:]], dim=1).sum()",
        ),
        block("hid = torch.tanh(xb @ wb).index_fill(1, torch.tensor([0]), 0.0)", "return hid.sum()"),
    ],
    "wrong": [
        block("hid = torch.tanh(xb @ wb)", "hid.data[:, 0] = 0", "return hid.sum()"),
        block("hid = torch.tanh(xb @ wb)", "with torch.no_grad():", "    hid[:, 0] = 0", "return hid.sum()"),
        block("hid = torch.tanh(xb @ wb).detach()", "hid[:, 0] = 0", "return hid.sum()"),
        block("hid = torch.tanh(xb @ wb)", "hid.detach()[:, 0] = 0", "return hid.sum()"),
    ],
    "with_extra_lines": [
        block("hid = torch.tanh(xb @ wb).clone()", "hid[:, 0] = 0", "print(hid.shape)", "return hid.sum()")
    ],
}
