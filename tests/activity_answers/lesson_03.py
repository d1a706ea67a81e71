"""Answers the lesson 03 checks must judge: right ones written another way, plausible wrong ones."""

TABLE = {
    "03.1": {
        "right": [
            "raises_for_add = False\nraises_for_square = True",
            "raises_for_square, raises_for_add = True, False",
        ],
        "wrong": [
            "raises_for_square = True\nraises_for_add = True",
            "raises_for_square = False\nraises_for_add = False",
            "raises_for_square = 1\nraises_for_add = 0",
        ],
    },
    "03.2": {
        "right": [
            "step_state = lambda state, t: recur(state.detach(), sequence[t])",
            (
                "def step_state(state, t):\n"
                "    state = state.detach().requires_grad_()\n"
                "    return recur(state, sequence[t])"
            ),
            "def step_state(state, t):\n    return recur(state.detach().clone(), sequence[t])",
        ],
        "wrong": [
            "def step_state(state, t):\n    return recur(state, sequence[t])",
            "def step_state(state, t):\n    return recur(torch.zeros(4), sequence[t])",
            "def step_state(state, t):\n    return recur(state, sequence[t]).detach()",
            "def step_state(state, t):\n    return recur(torch.zeros_like(state), sequence[t])",
        ],
    },
}
