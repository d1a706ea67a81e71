"""Answers the lesson 15 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "15.1": {
        "right": [
            "listed = 2 * 2 + 2",
            'listed = len(["0.weight", "0.bias", "1.weight", "1.bias", "head.weight", "head.bias"])',
        ],
        "wrong": ["listed = 8", "listed = 9", "listed = 3"],
    },
    "15.2": {
        "right": ['leaves = ["e", "c", "a"]', 'leaves = frozenset("ace")'],
        "wrong": [
            'leaves = {"c", "e"}',
            'leaves = {"a", "c", "d", "e"}',
            'leaves = {"a", "b", "c", "d", "e"}',
        ],
    },
}

TABLE["15.1"]["right"] += ["listed = 6.0", "import numpy as np\nlisted = np.int64(6)"]
TABLE["15.1"]["wrong"] += ["listed = 6.5", 'listed = "6"']
TABLE["15.1"]["with_extra_lines"] = ["listed = 6\nprint(listed)"]
TABLE["15.2"]["with_extra_lines"] = ['leaves = {"a", "c", "e"}\nprint(sorted(leaves))']

# every answer to 15.3 keeps Experts' forward; they differ in how __init__ holds experts and temperature
EXPERTS_FORWARD = (
    "\n"
    "    def forward(self, x):\n"
    "        weights = torch.softmax(self.router(x) / self.temperature, dim=-1)\n"
    "        outputs = torch.stack([expert(x) for expert in self.experts], dim=-1)\n"
    "        return (outputs * weights.unsqueeze(1)).sum(-1)"
)
EXPERTS_INIT = (
    "class FixedExperts(nn.Module):\n"
    "    def __init__(self, n=3, dim=4):\n"
    "        super().__init__()\n"
    "        self.router = nn.Linear(dim, n)\n"
)
TABLE["15.3"] = {
    "right": [
        EXPERTS_INIT + "        self.experts = nn.Sequential(*(nn.Linear(dim, dim) for _ in range(n)))\n"
        '        self.register_parameter("temperature", nn.Parameter(torch.ones(1)))\n' + EXPERTS_FORWARD,
        EXPERTS_INIT + "        for index in range(n):\n"
        '            self.add_module(f"expert{index}", nn.Linear(dim, dim))\n'
        "        self.temperature = nn.Parameter(torch.tensor([1.0]))\n"
        "\n"
        "    @property\n"
        "    def experts(self):\n"
        '        return [child for label, child in self.named_children() if label.startswith("expert")]\n'
        + EXPERTS_FORWARD,
    ],
    "wrong": [
        EXPERTS_INIT + "        self.experts = [nn.Linear(dim, dim) for _ in range(n)]\n"
        "        self.temperature = nn.Parameter(torch.ones(1))\n"
        + EXPERTS_FORWARD,  # the list still hides them
        EXPERTS_INIT + "        self.experts = nn.ModuleList([nn.Linear(dim, dim) for _ in range(n)])\n"
        "        self.temperature = torch.ones(1, requires_grad=True)\n" + EXPERTS_FORWARD,  # a plain tensor
        EXPERTS_INIT + "        self.experts = nn.ModuleList([nn.Linear(dim, dim) for _ in range(n)])\n"
        '        self.register_buffer("temperature", torch.ones(1))\n'
        + EXPERTS_FORWARD,  # saved, never learns
    ],
    "with_extra_lines": [
        EXPERTS_INIT + "        self.experts = nn.ModuleList([nn.Linear(dim, dim) for _ in range(n)])\n"
        "        self.temperature = nn.Parameter(torch.ones(1))\n" + EXPERTS_FORWARD + "\n\n\n"
        "print(len(list(FixedExperts().parameters())), list(FixedExperts(n=2).state_dict()))",
    ],
}
