"""Answers the lesson 18 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "18.1": {
        "right": ["unused_indices = [6, 7, 2, 3]", "unused_indices = [*range(2, 4), *range(6, 8)]"],
        "wrong": ["unused_indices = [4, 5]", "unused_indices = [2, 3]", "unused_indices = [2, 3, 4, 5]"],
    },
    "18.2": {
        "right": [
            'layers_status = GradStatus["OK"]',
            'layers_status = next(s for s in GradStatus if s.name == "OK")',
        ],
        "wrong": [
            "layers_status = GradStatus.NO_GRAD",
            "layers_status = GradStatus.FROZEN",
            'layers_status = "OK"',
        ],
    },
}

TABLE["18.1"]["with_extra_lines"] = ["unused_indices = [2, 3, 6, 7]\nprint(unused_indices)"]
TABLE["18.2"]["with_extra_lines"] = ["layers_status = GradStatus.OK\nprint(layers_status)"]
