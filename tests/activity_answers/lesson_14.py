"""Answers the lesson 14 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "14.1": {
        "right": ['predicted_stage = Stage["PARAMS_NOT_UPDATED"]', 'predicted_stage = "PARAMS_NOT_UPDATED"'],
        "wrong": [
            "predicted_stage = Stage.GRAD_MISSING",
            "predicted_stage = Stage.OK",
            "predicted_stage = Stage.GRADS_ACCUMULATING",
        ],
    },
}

TABLE["14.1"]["with_extra_lines"] = ["predicted_stage = Stage.PARAMS_NOT_UPDATED\nprint(predicted_stage)"]

TABLE["14.2"] = {
    "right": ['registers = {"e", "d", "b"}', 'registers = ["b", "d", "e"]', 'registers = "bde"'],
    "wrong": [
        'registers = {"b", "d"}',  # add_module registers too
        'registers = {"b", "c", "d", "e"}',  # a plain dict is not a ModuleDict
        'registers = {"b", "d", "e", "g"}',  # __dict__ goes around __setattr__
    ],
    "with_extra_lines": [
        'registers = {"b", "d", "e"}\n'
        "probe = nn.Module()\n"
        'probe.add_module("extra", nn.Linear(4, 4))\n'
        "print(len(list(probe.parameters())))",
    ],
}
