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

TABLE["15.4"] = {
    "right": [
        "def hidden_tensors(net):\n"
        "    registered = set(map(id, net.parameters()))\n"
        "\n"
        "    def trainable(held):\n"
        "        if isinstance(held, torch.Tensor):\n"
        "            return [held] if held.requires_grad else []\n"
        "        if isinstance(held, nn.Module):\n"
        "            return [tn for tn in held.parameters() if tn.requires_grad]\n"
        "        if isinstance(held, dict):\n"
        "            held = list(held.values())\n"
        "        if isinstance(held, (list, tuple)):\n"
        "            return [tn for entry in held for tn in trainable(entry)]\n"
        "        return []\n"
        "\n"
        "    return [\n"
        "        attr\n"
        "        for attr, held in net.__dict__.items()\n"
        "        if any(id(tn) not in registered for tn in trainable(held))\n"
        "    ]",
        "def hidden_tensors(net):\n"
        "    seen = {id(tn) for label, tn in net.named_parameters()}\n"
        "    out = []\n"
        "    for attr in vars(net):\n"
        "        held = getattr(net, attr)\n"
        "        bag = list(held.values()) if isinstance(held, dict) else held\n"
        "        bag = list(bag) if isinstance(bag, (list, tuple)) else [bag]\n"
        "        tns = [tn for e in bag for tn in (e.parameters() if isinstance(e, nn.Module) else [e])]\n"
        "        if any(torch.is_tensor(tn) and tn.requires_grad and id(tn) not in seen for tn in tns):\n"
        "            out.append(attr)\n"
        "    return set(out)",
    ],
    "wrong": [
        "def hidden_tensors(net):\n"  # forgets to compare with parameters(): _modules holds registered ones
        "    out = set()\n"
        "    for attr, held in vars(net).items():\n"
        "        bag = list(held.values()) if isinstance(held, dict) else held\n"
        "        bag = list(bag) if isinstance(bag, (list, tuple)) else [bag]\n"
        "        tns = [tn for e in bag for tn in (e.parameters() if isinstance(e, nn.Module) else [e])]\n"
        "        if any(torch.is_tensor(tn) and tn.requires_grad for tn in tns):\n"
        "            out.add(attr)\n"
        "    return out",
        "def hidden_tensors(net):\n"  # only lists of modules: misses the bare tensor and the dict
        "    return {\n"
        "        attr for attr, held in vars(net).items()\n"
        "        if isinstance(held, (list, tuple)) and any(isinstance(e, nn.Module) for e in held)\n"
        "    }",
        "def hidden_tensors(net):\n"  # only bare tensors: misses the tuple and the dict
        "    return {at for at, held in vars(net).items() if torch.is_tensor(held) and held.requires_grad}",
    ],
    "with_extra_lines": [
        "def hidden_tensors(net):\n"
        "    listed = {id(tn) for tn in net.parameters()}\n"
        "    found = set()\n"
        "    for attr, held in vars(net).items():\n"
        "        bag = held.values() if isinstance(held, dict) else held\n"
        "        bag = bag if isinstance(held, (list, tuple, dict)) else [held]\n"
        "        for e in bag:\n"
        "            for tn in e.parameters() if isinstance(e, nn.Module) else [e]:\n"
        "                if torch.is_tensor(tn) and tn.requires_grad and id(tn) not in listed:\n"
        "                    found.add(attr)\n"
        "    return found\n"
        "\n\n"
        "print(hidden_tensors(TinyResNet(blocks=list)))",
    ],
}
