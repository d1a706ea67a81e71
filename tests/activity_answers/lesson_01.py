"""Answers the lesson 01 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "01.2": {
        "right": [
            'still_recorded = ["c", "a"]',
            'still_recorded = set("ac")',
            'still_recorded = frozenset("ac")',
        ],
        "wrong": [
            'still_recorded = {"a", "b", "c"}',
            'still_recorded = {"a"}',
            'still_recorded = {"a", "c", "d"}',
        ],
    },
}

TABLE["01.2"]["with_extra_lines"] = ['still_recorded = {"a", "c"}\nprint(sorted(still_recorded))']

TABLE["01.1"] = {
    "right": [
        'gets_grad = ["classifier.bias", "features", "classifier.weight"]',
        'gets_grad = {"features"} | {"classifier." + p for p in ("weight", "bias")}',
        'gets_grad = frozenset(["features", "classifier.weight", "classifier.bias"])',
    ],
    "wrong": [
        'gets_grad = {"features", "encoder.weight", "encoder.bias", "classifier.weight", "classifier.bias"}',
        'gets_grad = {"classifier.weight", "classifier.bias"}',  # features is a leaf that requires grad
        'gets_grad = {"features"}',
        'gets_grad = {"features", "classifier"}',
    ],
    "with_extra_lines": [
        'gets_grad = {"features", "classifier.weight", "classifier.bias"}\nprint(sorted(gets_grad))',
    ],
}
