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
