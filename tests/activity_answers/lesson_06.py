"""Answers the lesson 06 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "06.1": {
        "right": ["predicted_frozen_count = 0 * 6", "predicted_frozen_count = len([])"],
        "wrong": ["predicted_frozen_count = 4", "predicted_frozen_count = 6", "predicted_frozen_count = 0.0"],
    },
}

TABLE["06.1"]["wrong"].remove("predicted_frozen_count = 0.0")
TABLE["06.1"]["right"].append("predicted_frozen_count = 0.0")  # zero written as a float is zero
TABLE["06.1"]["wrong"].append("predicted_frozen_count = None")
TABLE["06.1"]["with_extra_lines"] = ["predicted_frozen_count = 0\nprint(predicted_frozen_count)"]

TABLE["06.2"] = {
    "right": ['after_unfreezing = "B"', "after_unfreezing = 'b '"],
    "wrong": ['after_unfreezing = "c"', 'after_unfreezing = "a"', 'after_unfreezing = "bc"'],
    "with_extra_lines": ['after_unfreezing = "b"\nprint("my answer:", after_unfreezing)'],
}
