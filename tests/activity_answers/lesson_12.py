"""Answers the lesson 12 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "12.1": {
        "right": ['predicted_status = GradStatus["FROZEN"]', 'predicted_status = "FROZEN"'],
        "wrong": [
            "predicted_status = GradStatus.NOT_IN_OPTIMIZER",
            "predicted_status = GradStatus.NO_GRAD",
            "predicted_status = GradStatus.OK",
        ],
    },
    "12.2": {
        "right": ["tidy_forward = lambda model, x: model.fc2(model.fc1(x).relu())"],
        "wrong": [
            "def tidy_forward(model, x):\n    h = torch.relu(model.fc1(x)).detach()\n    return model.fc2(h)",
            "def tidy_forward(model, x):\n"
            "    h = torch.tensor(torch.relu(model.fc1(x)).tolist())\n"
            "    return model.fc2(h)",
            "def tidy_forward(model, x):\n    return model.fc2(model.fc1(x))",
        ],
    },
}

TABLE["12.1"]["with_extra_lines"] = ["predicted_status = GradStatus.FROZEN\nprint(predicted_status)"]
TABLE["12.2"]["with_extra_lines"] = [
    "def tidy_forward(model, x):\n    h = torch.relu(model.fc1(x))\n    return model.fc2(h)\n\n\n"
    "tried_model = TinyNet(seed=5)\n"
    "tried_x, tried_y = make_tiny_problem(seed=5, n=4)\n"
    "((tidy_forward(tried_model, tried_x) - tried_y) ** 2).mean().backward()\n"
    "print(tidy_forward(tried_model, tried_x).shape)",
]
