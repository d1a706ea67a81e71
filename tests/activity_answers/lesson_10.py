"""Answers the lesson 10 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "10.1": {
        "right": [
            "predicted_return = 5\npredicted_grad = (3 / 5, 4 / 5)",
            "predicted_return, predicted_grad = (3**2 + 4**2) ** 0.5, [0.6, 0.8]",
        ],
        "wrong": [
            "predicted_return = 1.0\npredicted_grad = [0.6, 0.8]",
            "predicted_return = 5.0\npredicted_grad = [3.0, 4.0]",
            "predicted_return = 7.0\npredicted_grad = [0.6, 0.8]",
        ],
    },
}

TABLE["10.1"]["right"].append(
    "predicted_return = torch.tensor(5.0)\npredicted_grad = torch.tensor([0.6, 0.8])"
)
TABLE["10.1"]["with_extra_lines"] = [
    "predicted_return = 5.0\npredicted_grad = [0.6, 0.8]\nprint(predicted_return, predicted_grad)",
]

TABLE["10.2"] = {
    "right": ['clip_after_step = "C"', "clip_after_step = '(c)'"],
    "wrong": ['clip_after_step = "b"', 'clip_after_step = "a"', 'clip_after_step = ["c"]'],
    "with_extra_lines": ['clip_after_step = "c"\nprint(clip_after_step)'],
}
