"""Answers the lesson 13 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "13.1": {
        "right": ['predicted_status = GradStatus["FROZEN"]', 'predicted_status = "FROZEN"'],
        "wrong": [
            "predicted_status = GradStatus.NOT_IN_OPTIMIZER",
            "predicted_status = GradStatus.NO_GRAD",
            "predicted_status = GradStatus.OK",
        ],
    },
}

TABLE["13.1"]["with_extra_lines"] = ["predicted_status = GradStatus.FROZEN\nprint(predicted_status)"]

TABLE["13.2"] = {
    "right": ['cuts = {"e", "b"}', 'cuts = ["b", "e"]', 'cuts = "be"'],
    "wrong": [
        'cuts = {"b"}',  # .data has no history either
        'cuts = {"a", "b", "e"}',  # clone is recorded
        'cuts = {"b", "e", "f"}',  # as_tensor of a tensor returns it
    ],
    "with_extra_lines": [
        'cuts = {"b", "e"}\nprint(torch.relu(torch.ones(2, requires_grad=True)).data.requires_grad)',
    ],
}
