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
