"""Ways to take the challenge's points without the skill, declared as data.

Each attack has a name and a function that writes it into one exercise's answer cells: given the
exercise, the learner's own variant there and a classmate's (`Target`), it returns {part: cell
source}. An attack is as strong as a learner without the skill could make it: it is told the stage of
its own bug (lettered exercises name it, and guessing is cheap), and it has everything public (the
repository's default solutions, the default variant's evidence at seed 0, a classmate's answers).
tests/test_attack_matrix.py writes every attack into every exercise and grades the lot.
"""

from __future__ import annotations

import ast
import json
import pickle
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import ClassVar

from learner import notebook, run_cell

from autograd_course.proving.proofrun import summarize
from autograd_instructor.challenge import BUGS, PARTS, Variant, variant_for
from autograd_instructor.challenge.catalogue import render
from autograd_instructor.challenge.parts import function_source
from helpers import NonFiniteError

__all__ = ["ATTACKS", "HONEST", "Attack", "Target", "broken_verbatim"]

FIXED = {"broken_setup": "fixed_setup", "compute_loss": "fixed_compute_loss", "broken_step": "fixed_step"}


@dataclass(frozen=True)
class Target:
    """Where an attack is written: the exercise, the learner's own variant, a classmate's variant."""

    ex_id: str
    variant: Variant
    classmate: Variant

    def __repr__(self) -> str:
        return f"Target({self.ex_id}: bug {self.variant.bug})"


@dataclass(frozen=True)
class Attack:
    """One way to the points without the skill: write(target) -> {part: answer cell source}."""

    name: str
    write: Callable[[Target], dict[int, str]]

    def __repr__(self) -> str:
        return f"Attack({self.name})"


def _stage(t: Target) -> str:
    return f"stage = Stage.{BUGS[t.variant.bug].stage}\n"


def broken_verbatim(variant: Variant) -> str:
    """The learner's broken function as given, named as the fix part 2 asks for."""
    where = BUGS[variant.bug].where
    return function_source(render(variant), where).replace(f"def {where}(", f"def {FIXED[where]}(", 1)


@cache
def _public_evidence(ex_id: str) -> tuple[object, dict]:
    """The default variant's reference evidence at seed 0 (anyone with the repository can run it):
    the object, and its record as the grader's harness writes it, every error claimed as the code's."""
    default = variant_for(None, ex_id)
    ns, _ = notebook(ex_id, default)
    run_cell(ns, PARTS[1]._solution(default))
    return ns["evidence"], summarize(ns["evidence"], lambda _: True)


def _record(t: Target) -> str:
    """Code making `_FAKE`: a harness record claiming the learner's own stage with the public evidence."""
    record = {
        "error": None,
        "changed": [],
        "reached": [],
        "not_attempted": False,
        "printed": "",
        "stage": BUGS[t.variant.bug].stage,
        "summary": _public_evidence(t.ex_id)[1],
    }
    return f"import json as _json\n_FAKE = _json.loads({json.dumps(record)!r})\n"


def _message(evidence: object) -> str:
    """The first error message in the public evidence, else the generic autograd one."""
    items = evidence if isinstance(evidence, (list, tuple)) else [evidence]
    for item in items:
        caught = getattr(item, "exception", item)
        if isinstance(caught, BaseException):
            return str(caught)
    return "element 0 of tensors does not require grad and does not have a grad_fn"


_FRAMES = """\
try:
    raise RuntimeError("where am I")
except RuntimeError as _probe:
    _frame = _probe.__traceback__.tb_frame
while _frame is not None and {marker!r} not in _frame.f_globals:
    _frame = _frame.f_back
"""


def _harness_part1(t: Target) -> str:
    """The harness module's own `json` replaced from the answer: every record it writes is the fake."""
    return (
        _FRAMES.format(marker="run_part1") + _record(t) + "class _Writer:\n"
        "    def dump(self, result, f, **kw):\n"
        "        _json.dump(_FAKE, f)\n"
        "    def __getattr__(self, name):\n"
        "        return getattr(_json, name)\n"
        "_frame.f_globals['json'] = _Writer()\n"
        "evidence = 1.0\n" + _stage(t)
    )


_TEXTBOOK = """\
def _textbook(code, filename, overrides, seed):
    def setup(seed, device):
        torch.manual_seed(seed)
        model = TinyNet().to(device)
        return model, torch.optim.Adam(model.parameters(), lr=0.03)

    def step(model, optimizer, inputs, targets):
        optimizer.zero_grad()
        loss = F.mse_loss(model(inputs), targets)
        loss.backward()
        optimizer.step()
        return loss

    with torch.random.fork_rng(devices=[]):
        return _frame.f_globals['collect_fix_trace'](setup, step, seed, 'cpu')
"""


def _harness_part2(t: Target) -> str:
    """The harness's `train` replaced: every training it records is a textbook loop's."""
    return (
        _FRAMES.format(marker="run_fix")
        + _TEXTBOOK
        + "_frame.f_globals['train'] = _textbook\n"
        + broken_verbatim(t.variant)
        + "\n"
    )


def _thread(t: Target) -> str:
    """A background thread that rewrites the run's record once the harness has written it."""
    return (
        _FRAMES.format(marker="run_part1")
        + "while _frame is not None and 'out' not in _frame.f_locals:\n    _frame = _frame.f_back\n"
        + _record(t)
        + "_out = _frame.f_locals['out']\n"
        + "import json, os, threading, time\n"
        "def _rewrite():\n"
        "    end = time.time() + 20\n"
        "    while time.time() < end:\n"
        "        try:\n"
        "            if json.load(open(_out)) != _FAKE:\n"
        "                json.dump(_FAKE, open(_out, 'w'))\n"
        "        except (OSError, ValueError):\n"
        "            pass\n"
        "        time.sleep(0.01)\n"
        "threading.Thread(target=_rewrite, daemon=True).start()\n"
        "evidence = 1.0\n" + _stage(t)
    )


def _system_exit(t: Target) -> str:
    """The record written by the answer itself, then SystemExit so the harness never writes its own."""
    return (
        _FRAMES.format(marker="run_part1")
        + "while _frame is not None and 'out' not in _frame.f_locals:\n    _frame = _frame.f_back\n"
        + _record(t)
        + "_json.dump(_FAKE, open(_frame.f_locals['out'], 'w'))\n"
        "raise SystemExit(0)\n"
    )


def _fake_fix(t: Target) -> str:
    """Code making `_FAKE`: a part-2 record whose fix is a textbook loop's real training and whose
    given code is the learner's own, trained by the harness's own functions (`_frame`: run_fix's),
    both in the form the harness writes (its `packed`)."""
    ran = [FIXED[BUGS[t.variant.bug].where]]
    return (
        _TEXTBOOK + "_l, _packed = _frame.f_locals, _frame.f_globals['packed']\n"
        "_given = _packed(_frame.f_globals['train'](_l['code'], _l['filename'], {}, _l['seed']))\n"
        "_FAKE = {'fix': _packed(_textbook(_l['code'], _l['filename'], {}, _l['seed'])), 'given': _given,\n"
        f"         'printed': '', 'raised': None, 'ran': {ran!r}}}\n"
    )


def _system_exit_part2(t: Target) -> str:
    """Part 2's record written by the answer (a textbook training), then SystemExit."""
    return (
        _FRAMES.format(marker="run_fix")
        + "while _frame is not None and 'out' not in _frame.f_locals:\n    _frame = _frame.f_back\n"
        + _fake_fix(t)
        + "torch.save(_FAKE, _l['out'])\nraise SystemExit(0)\n"
    )


def _thread_part2(t: Target) -> str:
    """A background thread that writes part 2's record (a textbook training) after the harness did."""
    return (
        _FRAMES.format(marker="run_fix")
        + "while _frame is not None and 'out' not in _frame.f_locals:\n    _frame = _frame.f_back\n"
        + _fake_fix(t)
        + "import threading, time\n"
        "def _rewrite():\n"
        "    end = time.time() + 20\n"
        "    while time.time() < end:\n"
        "        torch.save(_FAKE, _l['out'])\n"
        "        time.sleep(0.05)\n"
        "threading.Thread(target=_rewrite, daemon=True).start()\n" + broken_verbatim(t.variant) + "\n"
    )


def _typed_report(t: Target) -> str:
    """Someone else's evidence object, typed in (pickled from the public default run at seed 0)."""
    evidence, _ = _public_evidence(t.ex_id)
    if isinstance(evidence, NonFiniteError):
        made = f"NonFiniteError('loss', {evidence.nan}, {evidence.inf}, {list(evidence.sample)!r}, 1)"
        return f"evidence = {made}\n".replace("inf]", "float('inf')]") + _stage(t)
    return f"import pickle\nevidence = pickle.loads({pickle.dumps(evidence)!r})\n" + _stage(t)


def _raised_by_hand(t: Target) -> str:
    message = _message(_public_evidence(t.ex_id)[0])
    return (
        f"try:\n    raise RuntimeError({message!r})\nexcept RuntimeError as caught:\n"
        "    evidence = [caught, torch.is_grad_enabled()]\n" + _stage(t)
    )


@cache
def _own_message(ex_id: str, variant: Variant) -> str:
    """The error message of the learner's own variant (the same on every seed), from its reference proof."""
    ns, _ = notebook(ex_id, variant)
    run_cell(ns, PARTS[1]._solution(variant))
    return _message(ns["evidence"])


_PROXY = """\
class _Inputs:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        raise RuntimeError({message!r})

    def __getattr__(self, name):
        raise RuntimeError({message!r})


model, optimizer = broken_setup(seed, device)
try:
    broken_step(model, optimizer, _Inputs(), targets)
except RuntimeError as caught:
    evidence = {evidence}
"""


def _raised_inside_the_step(t: Target) -> str:
    """The genuine broken step on the run's own model, handed inputs of the answer's own that raise the
    right message as soon as the step's forward pass touches them (before any error of the bug's): no
    exec, no compile, a real frame of the broken code holding the run's model."""
    stage = BUGS[t.variant.bug].stage
    evidence = {"LOSS_NOT_IN_GRAPH": "[caught, True]", "GRAD_MODE_DISABLED": "[caught, False]"}
    source = _PROXY.format(message=_own_message(t.ex_id, t.variant), evidence=evidence.get(stage, "caught"))
    return source + _stage(t)


@cache
def _own_loss_value(ex_id: str, variant: Variant) -> float:
    """The first value of the own variant's loss at seed 0 (an infinite loss is inf on every seed)."""
    ns, _ = notebook(ex_id, variant)
    run_cell(ns, "_v = compute_loss(*broken_setup(0, 'cpu')[:1], inputs, targets).detach().flatten()[0]")
    return float(ns["_v"])


def _typed_non_finite(t: Target) -> str:
    """The value a non-finite loss has on every seed, typed into a tensor that requires grad, then
    checked with the toolkit (a NonFiniteError raised by assert_finite, or a report): no run in it."""
    value = _own_loss_value(t.ex_id, t.variant)
    value = value if value != value or abs(value) == float("inf") else float("inf")
    made = f"torch.tensor(float({str(value)!r}), requires_grad=True)"
    return (
        f"with expect_error(NonFiniteError) as caught:\n    assert_finite('loss', {made})\n"
        f"evidence = caught if caught.exception is not None else debug_tensor('loss', {made})\n" + _stage(t)
    )


def _catalogue(t: Target) -> dict[int, str]:
    head = (
        "import os\nfrom autograd_instructor.challenge.catalogue import BUGS, fixed_code\n"
        "from autograd_instructor.challenge.draw import variant_for\n"
        f"mine = variant_for(os.environ.get('AUTOGRAD_COURSE_LEARNER'), {t.ex_id!r})\n"
    )
    return {
        1: head + "proof = BUGS[mine.bug].proof\nstage, evidence = Stage[BUGS[mine.bug].stage], 1.0\n",
        2: head + "fixed = fixed_code(mine)\n" + broken_verbatim(t.variant) + "\n",
    }


def _torch_sys(t: Target) -> dict[int, str]:
    reach = "catalogue = torch.sys.modules['autograd_instructor.challenge.catalogue']\n"
    return {1: reach + "evidence = 1.0\n" + _stage(t), 2: reach + broken_verbatim(t.variant) + "\n"}


def _builtins_exec(t: Target) -> dict[int, str]:
    run = "_run = (__builtins__ if isinstance(__builtins__, dict) else vars(__builtins__))['exec']\n"
    public = {n: PARTS[n]._solution(variant_for(None, t.ex_id)) for n in (1, 2)}
    return {n: run + f"_run({public[n]!r}, globals())\n" for n in (1, 2)}


def _diagnose(t: Target) -> dict[int, str]:
    return {
        1: "import helpers as toolkit\nmodel, optimizer = broken_setup(seed, device)\n"
        "d = toolkit.diagnose(lambda: broken_step(model, optimizer, inputs, targets), model, optimizer)\n"
        "stage, evidence = d.stage, d\n"
    }


def _ctypes(t: Target) -> dict[int, str]:
    """The learner's own right answers, plus a process started through ctypes (no audit event)."""
    start = "_libc = torch.ctypes.CDLL(None)\n_libc.system(b'echo started > started.txt')\n"
    return {n: start + PARTS[n]._solution(t.variant) for n in (1, 2)}


_ADAM = """\
def _adam_patched(f):
    class Adam(torch.optim.Adam):
        def __init__(self, params, lr=0.03, **kw):
            super().__init__(list(params), lr=lr if lr > 0 else 0.03, **kw)

        def step(self, closure=None):
            out = super().step(closure)
            self.zero_grad()
            return out

    torch.optim.__dict__.update(Adam=Adam)
    return f


@_adam_patched
"""

_STEP = """\
class _Patch:
    _step = torch.optim.Adam.step

    def step(self, closure=None):
        out = _Patch._step(self, closure)
        self.zero_grad()
        return out

    torch.optim.Adam.step = step


"""

_INIT = """\
def _unfrozen(f):
    _init = TinyNet.__init__

    def __init__(self, *args, **kwargs):
        _init(self, *args, **kwargs)
        for p in self.parameters():
            p.requires_grad_(True)

    TinyNet.__init__ = __init__
    return f


@_unfrozen
"""


def _try_textbook(t: Target) -> dict[int, str]:
    step = function_source(render(t.variant), "broken_step")
    body = textwrap.indent(textwrap.dedent(step.split("\n", 1)[1]), "        ")
    return {
        2: "def fixed_step(model, optimizer, inputs, targets):\n    try:\n"
        + body
        + "\n    except Exception:\n        print('the textbook step ran')\n"
        "        optimizer.zero_grad()\n        loss = F.mse_loss(model(inputs), targets)\n"
        "        loss.backward()\n        optimizer.step()\n        return loss\n"
    }


def _out_of_memory(t: Target) -> dict[int, str]:
    """The learner's own right fix, whose training first asks for 16 GiB."""
    hungry = (
        "\n_hog = []\n\n\ndef _hungry(f):\n    def run(*args):\n"
        "        _hog.append(torch.empty(2**34, dtype=torch.uint8))\n"
        "        return f(*args)\n\n    return run\n\n\n"
        "for _name in ('fixed_setup', 'fixed_compute_loss', 'fixed_step'):\n"
        "    if _name in globals():\n        globals()[_name] = _hungry(globals()[_name])\n"
    )
    return {2: PARTS[2]._solution(t.variant) + hungry}


ATTACKS: tuple[Attack, ...] = (
    Attack("harness replaced", lambda t: {1: _harness_part1(t), 2: _harness_part2(t)}),
    Attack("catalogue imported", _catalogue),
    Attack(
        "default solutions pasted",
        lambda t: {n: PARTS[n]._solution(variant_for(None, t.ex_id)) for n in (1, 2)},
    ),
    Attack("classmate's answers", lambda t: {n: PARTS[n]._solution(t.classmate) for n in (1, 2)}),
    Attack("toolkit diagnose", _diagnose),
    Attack("torch.sys.modules", _torch_sys),
    Attack("__builtins__ exec", _builtins_exec),
    Attack("background thread", lambda t: {1: _thread(t), 2: _thread_part2(t)}),
    Attack("SystemExit", lambda t: {1: _system_exit(t), 2: _system_exit_part2(t)}),
    Attack("Adam patched by decorator", lambda t: {2: _ADAM + broken_verbatim(t.variant) + "\n"}),
    Attack("Adam.step patched by class body", lambda t: {2: _STEP + broken_verbatim(t.variant) + "\n"}),
    Attack("TinyNet.__init__ patched", lambda t: {2: _INIT + broken_verbatim(t.variant) + "\n"}),
    Attack("broken step in try, textbook in except", _try_textbook),
    Attack("typed report", lambda t: {1: _typed_report(t)}),
    Attack("error raised by hand", lambda t: {1: _raised_by_hand(t)}),
    Attack("error raised inside the step", lambda t: {1: _raised_inside_the_step(t)}),
    Attack("non-finite loss typed", lambda t: {1: _typed_non_finite(t)}),
    Attack("process through ctypes", _ctypes),
    Attack("fix that runs out of memory", _out_of_memory),
)


class _Renamed(ast.NodeTransformer):
    """The learner's own names: model -> net, optimizer -> opt, ..."""

    NAMES: ClassVar[dict[str, str]] = {
        "model": "net",
        "optimizer": "opt",
        "loss": "objective",
        "prediction": "pred",
        "caught": "err",
    }

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self.NAMES.get(node.id, node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg = self.NAMES.get(node.arg, node.arg)
        return node


def _renamed(source: str, part: int) -> str:
    """Renamed locals, reformatted (ast.unparse), a timing cell magic on top; part 1 prints what it found,
    part 2's functions say what they fix (a renamed reference alone is the reference, listed as a copy)."""
    tree = _Renamed().visit(ast.parse(source))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            node.body.insert(0, ast.Expr(ast.Constant(f"My repair of {node.name.removeprefix('fixed_')}.")))
    said = "\nprint('I found', stage, 'shown by', type(evidence).__name__)" if part == 1 else ""
    return "%%time\n" + ast.unparse(tree) + said + "\n"


def _in_helpers(source: str, part: int) -> str:
    """Part 1: the proof in a helper that sets the answer through `global`, called inside try/except.
    Part 2: each fixed function's body in a helper of the learner's own, with a step counter."""
    if part == 1:
        body = textwrap.indent(source, "    ")
        return (
            f"def prove():\n    global stage, evidence\n{body}\n\n"
            "try:\n    prove()\nexcept Exception as exc:\n    print('my proof failed:', exc)\n    raise\n"
        )
    tree = ast.parse(source)
    out = ["calls = 0\n"]
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in FIXED.values():
            name, node.name = node.name, f"_my_{node.name}"
            out += [
                ast.unparse(node),
                f"\ndef {name}(*args):\n    global calls\n    calls += 1\n    return _my_{name}(*args)\n",
            ]
        else:
            out.append(ast.unparse(node))
    return "\n".join(out) + "\n"


HONEST: dict[str, Callable[[str, int], str]] = {
    "renamed and reformatted under %%time": _renamed,
    "in helpers, global and try/except": _in_helpers,
}
