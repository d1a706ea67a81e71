"""The bug catalogue: every planted bug, where it lives, the stage it breaks, and the exercises.

Broken code is rendered from a variant (bug + code shape, see variants.py): three functions,
`broken_setup(seed, device)`, `compute_loss(model, inputs, targets)` and
`broken_step(model, optimizer, inputs, targets)`; each bug edits one of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from autograd_course.exercises import EXERCISES, Exercise, exercise
from autograd_course.fixing.fixcheck import LR
from autograd_course.harness_core import FIXABLE, broken_namespace, defined_codes
from autograd_instructor.challenge import compiled
from autograd_instructor.challenge.variants import Shape, Variant
from autograd_instructor.challenge.viewing import viewed
from helpers import Stage

__all__ = [
    "BUGS",
    "EXERCISES",
    "FIXABLE",
    "Bug",
    "Exercise",
    "build_broken",
    "drawable_bugs",
    "exercise",
    "fixed_code",
    "render",
    "stage_of",
    "unrecorded_fixed_code",
]


_TINY_STACK = '''\
class TinyStack(torch.nn.Module):
    """TinyNet written as a first layer and a stack of output layers."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.head = [torch.nn.Linear(8, 1)]  # room for more output heads later

    def forward(self, x):
        return self.head[0](torch.relu(self.fc1(x)))


'''


def _slots(shape: Shape) -> dict:
    out = shape.pick("out")
    return {
        "prelude": "",
        "model": "model = TinyNet().to(device)",
        "train": shape.pick("train"),
        "freeze": [],
        "params": shape.pick("params"),
        "lr": repr(LR),
        "optimizer": shape.pick("optimizer"),
        "after": [],
        "out": out,
        "forward": [f"{out} = {shape.pick('forward')}"],
        "post": [],
        "loss": shape.pick("loss").format(out=out),
        "globals": [],
        "zero": shape.pick("zero"),
        "call": ["loss = compute_loss(model, inputs, targets)"],
        "backward": ["loss.backward()"],
        "log": shape.pick("log"),
        "ret": shape.pick("ret"),
    }


def _body(*items: str | list[str]) -> str:
    lines: list[str] = []
    for item in items:
        lines += item if isinstance(item, list) else [item]
    return "".join(f"    {line}\n" for line in lines if line)


def _code(s: dict) -> str:
    optimizer = s["optimizer"].format(params=s["params"], lr=s["lr"])
    return (
        s["prelude"]
        + "def broken_setup(seed, device):\n"
        + _body("torch.manual_seed(seed)", s["model"], s["train"], s["freeze"])
        + _body(f"optimizer = {optimizer}", s["after"], "return model, optimizer")
        + "\n\ndef compute_loss(model, inputs, targets):\n"
        + _body(s["forward"], s["post"], f"return {s['loss']}")
        + "\n\ndef broken_step(model, optimizer, inputs, targets):\n"
        + _body(s["globals"], s["zero"], s["call"], s["backward"], "optimizer.step()", s["log"], s["ret"])
    )


@dataclass(frozen=True)
class Bug:
    """One planted bug: the code edit, the function it lives in, the stage it breaks, hints, proof."""

    key: str
    title: str
    stage: str  # a helpers.Stage member name (a name, so a stage the toolkit adds later can be declared)
    where: str  # the function holding the bug: broken_setup, compute_loss or broken_step
    edit: Callable[[dict], None]
    hints: tuple[str, ...]
    _proof: str  # reference part-1 code: computes `evidence` and sets `stage` (read through `proof`)
    lesson: str  # shown once part 1 is correct
    pins: tuple[tuple[str, int], ...] = ()  # slot choices this bug needs, in broken and fixed code alike
    fix: Callable[[dict], None] | None = None  # the reference fix's own edit (None: the bug's edit undone)

    @property
    def proof(self) -> str:
        """The reference part-1 code; reading it is recorded as viewing part 1's solution."""
        viewed(1, bug=self.key)
        return self._proof

    def __repr__(self) -> str:
        return f"Bug({self.key}: {self.title!r}, breaks Stage.{self.stage})"


def _set(**values: object) -> Callable[[dict], None]:
    return lambda s: s.update(values)


def _detach(s: dict) -> None:
    s["forward"][-1] += ".detach()"


def _divide(s: dict) -> None:
    s["post"] = [f"{s['out']} = {s['out']} / 0"]


def _log_zero(s: dict) -> None:
    s["post"] = [f"{s['out']} = torch.log(torch.relu({s['out']}))"]
    s["loss"] = f"F.mse_loss({s['out']}, torch.log1p(targets.abs()))"


def _in_place(s: dict) -> None:
    out = s["out"]
    s["forward"] = [
        "hidden = torch.relu(model.fc1(inputs))",
        f"{out} = model.fc2(hidden)",
        "hidden.mul_(0.5)",
    ]


def _softmax(s: dict) -> None:
    s["post"] = [f"{s['out']} = torch.softmax({s['out']}, dim=1)"]


def _running_total(s: dict) -> None:
    s["prelude"] = "running_loss = 0.0  # summed over steps for the training log\n\n\n"
    s["globals"] = ["global running_loss"]
    s["backward"] = ["running_loss = running_loss + loss", "running_loss.backward()"]


def _plain_list(s: dict) -> None:
    s["prelude"] = _TINY_STACK
    s["model"] = "model = TinyStack().to(device)"


def _warmup(factor: str) -> Callable[[dict], None]:
    """A warm-up schedule built with the optimizer and advanced by each optimizer.step()."""
    return _set(
        after=[
            f"# warm-up: the lr rises from 0 to {LR} over the first 100 steps, one step at a time",
            f"warmup = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: {factor})",
            "optimizer.register_step_post_hook(lambda *args: warmup.step())",
        ]
    )


_CONFIG = f'config = {{"lr": {LR}, "epochs": 40}}  # the run\'s settings'
_PLAIN_CALL = (("forward", 0),)  # `model(inputs)`: TinyStack has no fc2 to call directly


_RUN = "model, optimizer = broken_setup(seed, device)\n"
_RAISES = (
    _RUN + "with expect_error(RuntimeError) as caught:\n"
    "    broken_step(model, optimizer, inputs, targets)\n"
    "evidence = caught.exception  # the error the broken step raises\n"
)

BUGS: dict[str, Bug] = {
    bug.key: bug
    for bug in [
        Bug(
            "A",
            "the output is detached before the loss",
            "LOSS_NOT_IN_GRAPH",
            "compute_loss",
            _detach,
            (
                "backward() fails before any gradient exists: look at the loss, not at the parameters.",
                "debug_tensor, or autograd_graph(loss, model), on the loss compute_loss(model, inputs, "
                "targets) returns on its own: is anything recorded, even with grad mode on?",
            ),
            _RUN + "evidence = debug_tensor('loss', compute_loss(model, inputs, targets))  # on its own\n"
            "print(evidence)\nstage = Stage.LOSS_NOT_IN_GRAPH\n",
            "`.detach()` on the output cuts every parameter out of the loss's graph: the loss has no "
            "grad_fn, so backward() raises before any gradient exists.",
        ),
        Bug(
            "B",
            "fc1 is frozen",
            "PARAMS_FROZEN",
            "broken_setup",
            _set(freeze=["for param in model.fc1.parameters():", "    param.requires_grad = False"]),
            (
                "The step runs and the loss even falls a little. Ask which parameters can train at all.",
                "parameter_report(model), or classify_parameter_gradients(model, optimizer) after one step.",
            ),
            _RUN + "evidence = parameter_report(model)\nprint(evidence)\nstage = Stage.PARAMS_FROZEN\n",
            "A parameter with requires_grad=False is never recorded, gets no gradient and never trains; "
            "parameter_report shows it before a single step runs.",
        ),
        Bug(
            "C",
            "the optimizer holds fc2 only",
            "NOT_IN_OPTIMIZER",
            "broken_setup",
            _set(params="model.fc2.parameters()"),
            (
                "Every parameter gets a gradient, yet some never move. Which ones does the optimizer know?",
                "classify_parameter_gradients(model, optimizer) after one broken step, or "
                "snapshot_parameters / parameter_changes around it.",
            ),
            _RUN + "broken_step(model, optimizer, inputs, targets)\n"
            "evidence = classify_parameter_gradients(model, optimizer)\nprint(evidence)\n"
            "stage = Stage.NOT_IN_OPTIMIZER\n",
            "The optimizer only updates the tensors it was given: gradients reach fc1, but nothing moves it.",
        ),
        Bug(
            "D",
            "zero_grad() is missing",
            "GRADS_ACCUMULATING",
            "broken_step",
            _set(zero=""),
            (
                "One step looks fine. Compare the gradients of several steps in a row.",
                "Keep grad_norm(model) (or gradient_report(model)) after each of three broken steps in a "
                "list; that list is your evidence if the gradients grow.",
            ),
            _RUN + "evidence = []\nfor _ in range(3):\n"
            "    broken_step(model, optimizer, inputs, targets)\n"
            "    evidence.append(grad_norm(model))\nprint(evidence)\n"
            "stage = Stage.GRADS_ACCUMULATING\n",
            "backward() adds to .grad; without zero_grad() each step's gradient carries every earlier one, "
            "so the gradient norm grows step after step.",
        ),
        Bug(
            "E",
            "the output is divided by zero",
            "FORWARD_NON_FINITE",
            "compute_loss",
            _divide,
            (
                "Nothing raises, but look at the numbers the forward pass produces.",
                "assert_finite on the loss compute_loss returns: keep the NonFiniteError it raises as "
                "your evidence, or debug_tensor it.",
            ),
            _RUN + "with expect_error(NonFiniteError) as caught:\n"
            "    assert_finite('loss', compute_loss(model, inputs, targets))\n"
            "evidence = caught.exception\nstage = Stage.FORWARD_NON_FINITE\n",
            "Dividing by zero turns every output into Inf (or NaN), and everything computed from it follows.",
        ),
        Bug(
            "F",
            "the loss is computed under no_grad",
            "GRAD_MODE_DISABLED",
            "broken_step",
            _set(call=["with torch.no_grad():", "    loss = compute_loss(model, inputs, targets)"]),
            (
                "backward() fails: was anything recorded while the forward pass ran?",
                "The error alone fits two stages. debug_tensor the loss compute_loss(model, inputs, targets) "
                "returns on its own: is it recorded there? Where the step computes it, is grad mode on?",
            ),
            _RAISES.replace("evidence = caught.exception  # the error the broken step raises\n", "")
            + "outside = debug_tensor('loss', compute_loss(model, inputs, targets))  # recorded here?\n"
            "print(outside)\nevidence = [caught.exception, outside]\nstage = Stage.GRAD_MODE_DISABLED\n",
            "Under torch.no_grad() nothing is recorded, so the loss has no grad_fn and backward() raises.",
            # diagnose sees grad mode through the model's own call; model.forward(...) and direct layer
            # calls hide it from the doctor (reported to the toolkit), so this bug keeps the plain call.
            _PLAIN_CALL,
        ),
        Bug(
            "G",
            "the learning rate is zero",
            "PARAMS_NOT_UPDATED",
            "broken_setup",
            _set(freeze=[_CONFIG], lr='config.get("learning_rate", 0.0)'),
            (
                "Gradients look healthy. Did the step change anything?",
                "snapshot_parameters(model) before a broken step, parameter_changes(model, snapshot) after.",
            ),
            _RUN + "before = snapshot_parameters(model)\nbroken_step(model, optimizer, inputs, targets)\n"
            "evidence = parameter_changes(model, before)\nprint(evidence)\n"
            "stage = Stage.PARAMS_NOT_UPDATED\n",
            "The optimizer's learning rate is 0.0: `config` has no key 'learning_rate', so `.get` returns "
            "its default, and optimizer.step() runs and changes nothing.",
            fix=_set(freeze=[_CONFIG], lr='config["lr"]'),
        ),
        Bug(
            "H",
            "a layer is replaced after the optimizer was built",
            "NOT_IN_OPTIMIZER",
            "broken_setup",
            _set(after=["model.fc2 = torch.nn.Linear(8, 1).to(device)"]),
            (
                "Every parameter gets a gradient, yet some never move. Which tensors does the optimizer "
                "hold?",
                "classify_parameter_gradients(model, optimizer) after one broken step.",
            ),
            _RUN + "broken_step(model, optimizer, inputs, targets)\n"
            "evidence = classify_parameter_gradients(model, optimizer)\nprint(evidence)\n"
            "stage = Stage.NOT_IN_OPTIMIZER\n",
            "The optimizer keeps the tensors it was built with; a layer replaced later is missing from it.",
        ),
        Bug(
            "I",
            "a saved tensor is changed in place",
            "BACKWARD_FAILED",
            "compute_loss",
            _in_place,
            (
                "backward() raises. Read the error, all of it: what was modified, and what version?",
                "with expect_error(RuntimeError) as caught: run one broken step; caught.exception is "
                "your evidence.",
            ),
            _RAISES + "print(evidence)\nstage = Stage.BACKWARD_FAILED\n",
            "Autograd saved the tensor for backward; changing it in place bumps its version, and "
            "backward() refuses to use a modified value.",
        ),
        Bug(
            "J",
            "log(0) in the loss",
            "FORWARD_NON_FINITE",
            "compute_loss",
            _log_zero,
            (
                "The loss is not a number you can train on. Where does it stop being finite?",
                "assert_finite or debug_tensor on what compute_loss returns.",
            ),
            _RUN + "evidence = debug_tensor('loss', compute_loss(model, inputs, targets))\nprint(evidence)\n"
            "stage = Stage.FORWARD_NON_FINITE\n",
            "relu makes zeros and log(0) is -Inf: the loss is not finite from the first step.",
        ),
        Bug(
            "K",
            "softmax over a one-output head before the loss",
            "GRAD_MAGNITUDE",
            "compute_loss",
            _softmax,
            (
                "The loss never changes. How big are the gradients?",
                "gradient_report(model) after one broken step: its rows keep the values beside a zero.",
            ),
            _RUN + "broken_step(model, optimizer, inputs, targets)\n"
            "evidence = gradient_report(model)\nprint(evidence)\nstage = Stage.GRAD_MAGNITUDE\n",
            "softmax over a dimension of size one is always 1: the loss is constant and every gradient "
            "is exactly zero (the field version: softmax before CrossEntropyLoss, which applies its own).",
        ),
        Bug(
            "L",
            "the logged running loss keeps every step's graph",
            "BACKWARD_FAILED",
            "broken_step",
            _running_total,
            (
                "The first step works; the second raises. What does the second backward go through?",
                "Run two broken steps under expect_error(RuntimeError) and keep caught.exception.",
            ),
            _RUN + "with expect_error(RuntimeError) as caught:\n    for _ in range(2):\n"
            "        broken_step(model, optimizer, inputs, targets)\n"
            "evidence = caught.exception\nstage = Stage.BACKWARD_FAILED\n",
            "A running total built from loss tensors keeps every step's graph alive (a memory leak), "
            "and backward() through it reaches the first step's freed graph. Log loss.item() instead.",
        ),
        Bug(
            "M",
            "a layer kept in a plain Python list",
            "PARAMS_UNREGISTERED",
            "broken_setup",
            _plain_list,
            (
                "The loss falls, slowly. Is every layer the forward pass uses a parameter of the model?",
                "Compare parameter_report(model) with the layers forward() calls.",
            ),
            _RUN + "broken_step(model, optimizer, inputs, targets)\n"
            "evidence = gradient_report(model)\nprint(evidence)\nstage = Stage.PARAMS_UNREGISTERED\n",
            "A module in a plain list is not registered: model.parameters() skips it, so the optimizer "
            "never trains it. Use nn.ModuleList.",
            _PLAIN_CALL,
        ),
        Bug(
            "N",
            "the warm-up schedule holds the learning rate at zero",
            "PARAMS_NOT_UPDATED",
            "broken_setup",
            _warmup("step // 100"),
            (
                "Gradients look healthy. Did the step change anything, and with what learning rate?",
                "parameter_changes(model, snapshot) around a broken step; then read "
                "optimizer.param_groups[0]['lr'] and the warm-up's factor for the first steps.",
            ),
            _RUN + "before = snapshot_parameters(model)\nbroken_step(model, optimizer, inputs, targets)\n"
            "evidence = parameter_changes(model, before)\nprint(evidence)\n"
            "print('lr now:', optimizer.param_groups[0]['lr'])\nstage = Stage.PARAMS_NOT_UPDATED\n",
            "LambdaLR sets lr = 0.03 × factor(step) as soon as it is built, and `step // 100` is integer "
            "division: 0 for the first 100 steps, so every optimizer.step() runs with lr 0 and changes "
            "nothing: the warm-up never starts.",
            fix=_warmup("min(1.0, (step + 1) / 100)"),
        ),
    ]
}


def stage_of(bug_key: str) -> Stage | None:
    """The helpers.Stage this bug breaks, or None while the toolkit does not have that stage yet."""
    return Stage.__members__.get(BUGS[bug_key].stage)


def drawable_bugs() -> list[str]:
    """Bugs a mystery round can draw: every catalogue bug whose stage the toolkit can name."""
    return [key for key in BUGS if stage_of(key) is not None]


def _pinned(variant: Variant) -> Shape:
    shape = variant.shape
    for slot, choice in BUGS[variant.bug].pins:
        shape = shape.with_choice(slot, choice)
    return shape


def render(variant: Variant) -> str:
    """The source of the broken code of one variant."""
    slots = _slots(_pinned(variant))
    BUGS[variant.bug].edit(slots)
    return _code(slots)


def unrecorded_fixed_code(variant: Variant) -> str:
    """The same code shape with the bug removed, for the checks themselves (nothing is recorded)."""
    slots = _slots(_pinned(variant))
    fix = BUGS[variant.bug].fix
    if fix is not None:
        fix(slots)
    return _code(slots)


def fixed_code(variant: Variant) -> str:
    """The reference answer of part 2 in full; reading it is recorded as viewing part 2's solution."""
    viewed(2, variant=variant)
    return unrecorded_fixed_code(variant)


def build_broken(
    variant: Variant | str, overrides: dict[str, Callable] | None = None, filename: str | None = None
) -> dict:
    """The namespace of one variant's compiled broken code; overrides replace its functions by name.

    The code is compiled under `filename` (a hidden run's random name, the only one then accepted as
    broken code) or the default name, which names no bug.
    """
    if isinstance(variant, str):
        variant = Variant(variant)
    namespace = broken_namespace(render(variant), filename or compiled.DEFAULT)
    codes = defined_codes(namespace, filename or compiled.DEFAULT)
    if filename is None:
        compiled.accept(codes)
    else:
        compiled.accept_only(codes)
    namespace.update(overrides or {})
    return namespace
