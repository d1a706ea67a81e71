"""The bug catalogue: every planted bug, its broken code, the stage it breaks, and the exercises."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from helpers import Stage, TinyNet

__all__ = [
    "BUGS",
    "CORRECT_SETUP",
    "CORRECT_STEP",
    "EXERCISES",
    "Bug",
    "Exercise",
    "build_broken",
    "exercise",
]

# The working setup and step every bug starts from (the broken versions change one thing).
CORRECT_SETUP = """\
def broken_setup(seed, device):
    torch.manual_seed(seed)
    model = TinyNet().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.03)
    return model, optimizer
"""
CORRECT_STEP = """\
def broken_step(model, optimizer, inputs, targets):
    optimizer.zero_grad()
    outputs = model(inputs)
    loss = F.mse_loss(outputs, targets)
    loss.backward()
    optimizer.step()
    return loss
"""


@dataclass(frozen=True)
class Bug:
    """One planted bug: its code (a broken setup and step), the stage it breaks, and hints."""

    key: str
    title: str
    stage: Stage
    setup: str
    step: str
    hints: tuple[str, ...]
    fix_hints: tuple[str, ...]

    def __repr__(self) -> str:
        return f"Bug({self.key}: {self.title!r}, breaks {self.stage!r})"


def _edit(text: str, old: str, new: str) -> str:
    if old not in text:
        raise ValueError(f"catalogue edit: {old!r} not found")
    return text.replace(old, new)


_HINT_REPORTS = "Run one broken step, then ask the helpers: gradient_report, classify_parameter_gradients, "
_FIX_COMMON = "Return the loss you called backward() on; the check recomputes it from the model's weights."

BUGS: dict[str, Bug] = {
    bug.key: bug
    for bug in [
        Bug(
            "A",
            "the output is detached before the loss",
            Stage.LOSS_NOT_IN_GRAPH,
            CORRECT_SETUP,
            _edit(CORRECT_STEP, "outputs = model(inputs)", "outputs = model(inputs).detach()"),
            (
                "backward() fails before any gradient exists: look at the loss itself, "
                "not at the parameters.",
                "debug_tensor('loss', loss) on the loss the broken step builds: does it require grad, "
                "and does it have a grad_fn?",
            ),
            ("Keep the output in the graph; change nothing else.", _FIX_COMMON),
        ),
        Bug(
            "B",
            "fc1 is frozen",
            Stage.PARAMS_FROZEN,
            _edit(
                CORRECT_SETUP,
                "    optimizer =",
                "    for param in model.fc1.parameters():\n"
                "        param.requires_grad = False\n    optimizer =",
            ),
            CORRECT_STEP,
            (
                "The step runs and the loss even falls a little. Ask which parameters can train at all.",
                "parameter_report(model) or classify_parameter_gradients(model, optimizer) after one step.",
            ),
            ("Every parameter of TinyNet must train.", _FIX_COMMON),
        ),
        Bug(
            "C",
            "the optimizer holds fc2 only",
            Stage.NOT_IN_OPTIMIZER,
            _edit(CORRECT_SETUP, "Adam(model.parameters()", "Adam(model.fc2.parameters()"),
            CORRECT_STEP,
            (
                "Every parameter gets a gradient, yet some never move. Which ones does the optimizer know?",
                "classify_parameter_gradients(model, optimizer) after one broken step, or "
                "snapshot_parameters / parameter_changes around it.",
            ),
            ("The optimizer must hold every parameter of the model.", _FIX_COMMON),
        ),
        Bug(
            "D",
            "zero_grad() is missing",
            Stage.GRADS_ACCUMULATING,
            CORRECT_SETUP,
            _edit(CORRECT_STEP, "    optimizer.zero_grad()\n", ""),
            (
                "One step looks fine. Compare the gradients of several steps in a row.",
                "Keep a list of gradient_report(model) (or grad_norm(model)) after each of three broken "
                "steps; that list is your evidence.",
            ),
            ("Each step's gradient must come from that step's loss alone.", _FIX_COMMON),
        ),
        Bug(
            "E",
            "the output is divided by zero",
            Stage.FORWARD_NON_FINITE,
            CORRECT_SETUP,
            _edit(
                CORRECT_STEP,
                "    loss = F.mse_loss(outputs, targets)",
                "    outputs = outputs / 0\n    loss = F.mse_loss(outputs, targets)",
            ),
            (
                "Nothing raises, but look at the numbers the forward pass produces.",
                "assert_finite('outputs', outputs) on the broken forward pass: keep the NonFiniteError it "
                "raises (try/except) as your evidence, or debug_tensor the outputs.",
            ),
            ("The forward pass must stay finite; keep the model's output as it is.", _FIX_COMMON),
        ),
        Bug(
            "F",
            "the step runs under no_grad",
            Stage.GRAD_MODE_DISABLED,
            CORRECT_SETUP,
            _edit(
                CORRECT_STEP,
                "    outputs = model(inputs)\n    loss = F.mse_loss(outputs, targets)\n",
                "    with torch.no_grad():\n        outputs = model(inputs)\n"
                "        loss = F.mse_loss(outputs, targets)\n",
            ),
            (
                "backward() fails: was anything recorded while the forward pass ran?",
                "Rebuild the forward pass as the step does and debug_tensor the loss: "
                "requires_grad, grad_fn.",
            ),
            ("The forward pass must run with grad mode on.", _FIX_COMMON),
        ),
        Bug(
            "G",
            "the learning rate is zero",
            Stage.PARAMS_NOT_UPDATED,
            _edit(CORRECT_SETUP, "lr=0.03", "lr=0.0"),
            CORRECT_STEP,
            (
                "Gradients look healthy. Did the step change anything?",
                "snapshot_parameters(model) before one broken step, "
                "parameter_changes(model, snapshot) after.",
            ),
            ("optimizer.step() must move the weights.", _FIX_COMMON),
        ),
        Bug(
            "H",
            "a layer is replaced after the optimizer was built",
            Stage.NOT_IN_OPTIMIZER,
            _edit(
                CORRECT_SETUP,
                "    return model, optimizer",
                "    model.fc2 = torch.nn.Linear(8, 1).to(device)\n    return model, optimizer",
            ),
            CORRECT_STEP,
            (
                "Every parameter gets a gradient, yet some never move. "
                "Which tensors does the optimizer hold?",
                "classify_parameter_gradients(model, optimizer) after one broken step.",
            ),
            ("The optimizer must hold the tensors the model uses now.", _FIX_COMMON),
        ),
        Bug(
            "I",
            "a saved tensor is changed in place",
            Stage.BACKWARD_FAILED,
            CORRECT_SETUP,
            _edit(
                CORRECT_STEP,
                "    outputs = model(inputs)\n",
                "    hidden = torch.relu(model.fc1(inputs))\n    outputs = model.fc2(hidden)\n"
                "    hidden.mul_(0.5)\n",
            ),
            (
                "backward() raises. Read the error, all of it: what was modified, and what version?",
                "with expect_error(RuntimeError, 'inplace') as caught: run one broken step; `caught` is "
                "your evidence.",
            ),
            ("Never change a tensor autograd saved for backward.", _FIX_COMMON),
        ),
        Bug(
            "J",
            "log(0) in the loss",
            Stage.FORWARD_NON_FINITE,
            CORRECT_SETUP,
            _edit(
                CORRECT_STEP,
                "    loss = F.mse_loss(outputs, targets)",
                "    predicted = torch.log(torch.relu(outputs))\n"
                "    loss = F.mse_loss(predicted, torch.log1p(targets.abs()))",
            ),
            (
                "The loss is not a number you can train on. Where does it stop being finite?",
                "assert_finite or debug_tensor on each intermediate tensor of the broken forward pass.",
            ),
            ("Train on the mean squared error of the model's output.", _FIX_COMMON),
        ),
    ]
}


@dataclass(frozen=True)
class Exercise:
    """One graded notebook: an id, a title, and the bug planted in it (hidden for mystery rounds)."""

    id: str
    title: str
    bug: str
    mystery: bool

    def __repr__(self) -> str:
        return f"Exercise({self.id}: {self.title!r})"


# Mystery rounds draw from the catalogue; the notebook never names the bug.
EXERCISES: dict[str, Exercise] = {
    ex.id: ex
    for ex in [
        Exercise("A", "The detached output", "A", False),
        Exercise("B", "The frozen layer", "B", False),
        Exercise("C", "The forgotten layer", "C", False),
        Exercise("D", "The missing zero_grad", "D", False),
        Exercise("E", "Division by zero", "E", False),
        Exercise("M1", "Mystery round 1", "G", True),
        Exercise("M2", "Mystery round 2", "I", True),
        Exercise("M3", "Mystery round 3", "H", True),
    ]
}


def exercise(exercise_id: str) -> Exercise:
    """The exercise with this id (A-E, M1-M3); a clear error for anything else."""
    if exercise_id not in EXERCISES:
        raise KeyError(f"no exercise {exercise_id!r}; expected one of {', '.join(EXERCISES)}")
    return EXERCISES[exercise_id]


def build_broken(bug_key: str) -> tuple[Callable, Callable]:
    """(broken_setup, broken_step) compiled from the catalogue's code for one bug."""
    bug = BUGS[bug_key]
    namespace: dict = {"torch": torch, "F": torch.nn.functional, "TinyNet": TinyNet}
    exec(compile(bug.setup + "\n\n" + bug.step, f"<broken code {bug_key}>", "exec"), namespace)
    return namespace["broken_setup"], namespace["broken_step"]
