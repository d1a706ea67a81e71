"""Each part's run writes its own record however the answer beside it behaves.

The answer runs in the harness's process (proving/proofrun.py, fixing/fixrun.py), so it can reach the
harness through a frame, leave a thread behind, or raise SystemExit. Each case runs `run_part1` or
`run_fix` in a fresh process, as the grader's kernel does, with an answer that first writes a forged
record of its own; the record left afterwards must be the harness's, saying what the answer did. An
honest proof beside them is untouched. What an answer replaced is found by one snapshot
(harness_core.Untouched), tested here on its own too.
"""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import pytest
import torch

from autograd_course.fixing import fixrun
from autograd_course.harness_core import Untouched, given_namespace, untouched
from autograd_instructor.challenge import BUGS, variant_for
from autograd_instructor.challenge.catalogue import render

FORGED = {"stage": "PARAMS_FROZEN", "summary": {"type": "number", "value": 1.0}, "forged": True}

# Reach the harness's module from a frame of the answer (as tests/attacks.py does), and the record's path.
_REACH = """\
import json as _json
_frame = __import__("sys")._getframe()
while _frame is not None and "run_part1" not in _frame.f_globals:
    _frame = _frame.f_back
_harness = _frame.f_globals
_out = _frame
while "out" not in _out.f_locals:
    _out = _out.f_back
_out = _out.f_locals["out"]
"""

ANSWERS = {
    "harness's json replaced": _REACH + "class _Writer:\n"
    "    def dump(self, result, f, **kw):\n"
    f"        _json.dump({FORGED!r}, f)\n"
    "_harness['json'] = _Writer()\n"
    "stage, evidence = Stage.PARAMS_FROZEN, 1.0\n",
    "SystemExit after writing": _REACH + f"_json.dump({FORGED!r}, open(_out, 'w'))\nraise SystemExit(0)\n",
    "thread that rewrites": _REACH + "import threading, time\n"
    "def _rewrite():\n"
    "    while True:\n"
    f"        _json.dump({FORGED!r}, open(_out, 'w'))\n"
    "        time.sleep(0.005)\n"
    "threading.Thread(target=_rewrite, daemon=True).start()\n"
    "stage, evidence = Stage.PARAMS_FROZEN, 1.0\n",
}

_RUN = """
import json, sys, time
from autograd_course.proving import proofrun
source, code, out = json.loads(sys.stdin.read())
proofrun.run_part1(source, code, "<broken code test>", 3, out)
time.sleep(0.3)  # a thread left running would rewrite the record now
print("kernel still running")
"""


def _kernel(script: str, *payload: str) -> subprocess.CompletedProcess:
    """Run script in a fresh Python process, as the grader's kernel runs a harness, the payload (strings:
    answers, the broken code, the record's path) given on stdin as one JSON list."""
    return subprocess.run(
        [sys.executable, "-c", script], input=json.dumps(payload), capture_output=True, text=True, timeout=180
    )


def _run(tmp_path: Path, source: str) -> tuple[dict, str]:
    out = tmp_path / "record.json"
    done = _kernel(_RUN, source, render(variant_for(None, "B")), str(out))
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(out.read_text()), done.stdout


@pytest.mark.parametrize("name", list(ANSWERS))
def test_the_record_is_the_harness_s_whatever_the_answer_did(tmp_path, name):
    record, stdout = _run(tmp_path, ANSWERS[name])
    assert "forged" not in record, record
    assert "kernel still running" in stdout
    if name == "harness's json replaced":
        assert record["changed"] == ["the grader's run (json)"] and record["summary"] is None
    elif name == "SystemExit after writing":
        assert record["error"]["name"] == "SystemExit" and record["not_attempted"]
    else:
        assert any("thread" in r for r in record["reached"]), record["reached"]


def test_an_honest_proof_beside_them_is_judged_as_before(tmp_path):
    record, _ = _run(tmp_path, BUGS["B"].proof)
    assert record["changed"] == [] and record["reached"] == [] and record["error"] is None
    assert record["stage"] == "PARAMS_FROZEN" and record["summary"]["type"] == "ParameterReport"


def test_a_thread_that_cannot_be_stopped_ends_the_kernel_after_the_record_is_written(tmp_path):
    """A thread inside one long C call (a sleep) does not see SystemExit until it returns: the kernel
    ends (status 70) once the harness's record is written, so the thread never rewrites it."""
    out = tmp_path / "record.json"
    source = (
        _REACH + "import threading, time\n"
        "def _later():\n"
        "    time.sleep(30)\n"
        f"    _json.dump({FORGED!r}, open(_out, 'w'))\n"
        "threading.Thread(target=_later, daemon=True).start()\n"
        "stage, evidence = Stage.PARAMS_FROZEN, 1.0\n"
    )
    done = _kernel(_RUN, source, render(variant_for(None, "B")), str(out))
    assert done.returncode == 70, (done.returncode, done.stderr[-2000:])
    record = json.loads(out.read_text())
    assert "forged" not in record and any("thread" in r for r in record["reached"]), record


# Part 2's harness (fixing/fixrun.py) writes its record with torch.save: the same three answers.
PART2 = {
    "harness's train replaced": _REACH.replace("run_part1", "run_fix")
    + "_harness['train'] = lambda *args: {'forged': True}\n",
    "SystemExit after writing": _REACH.replace("run_part1", "run_fix")
    + "torch.save({'forged': True}, _out)\nraise SystemExit(0)\n",
    "thread that rewrites": _REACH.replace("run_part1", "run_fix") + "import threading, time\n"
    "def _rewrite():\n"
    "    while True:\n"
    "        torch.save({'forged': True}, _out)\n"
    "        time.sleep(0.005)\n"
    "threading.Thread(target=_rewrite, daemon=True).start()\n",
}

_RUN_FIX = """
import json, sys, time
from autograd_course.fixing import fixrun
source, code, out = json.loads(sys.stdin.read())
fixrun.run_fix(source, code, "<broken code test>", 3, out)
time.sleep(0.3)  # a thread left running would rewrite the record now
print("kernel still running")
"""


@pytest.mark.parametrize("name", list(PART2))
def test_part_two_s_record_is_the_harness_s_whatever_the_answer_did(tmp_path, name):
    out = tmp_path / "record.pt"
    done = _kernel(_RUN_FIX, PART2[name], render(variant_for(None, "A")), str(out))
    assert done.returncode == 0 and "kernel still running" in done.stdout, done.stderr[-2000:]
    record = torch.load(out, weights_only=True)
    assert "forged" not in record and "given" in record, record
    if name == "harness's train replaced":
        assert record["changed"] == ["the grader's run (train)"]
    elif name == "SystemExit after writing":
        assert record["raised"]["name"] == "SystemExit"
    else:
        assert any("thread" in r for r in record["reached"]), record["reached"]


def test_a_patch_to_json_that_would_write_a_later_run_s_record_is_reported(tmp_path):
    """The kernel is shared by a learner's answers: json.dump replaced by one answer would write the
    records of the runs after it, so the run that replaces it reports the change."""
    source = (
        "import json\n_dump = json.dump\n"
        "json.dump = lambda result, f, **kw: _dump(dict(result, forged=True), f, **kw)\n"
        "stage, evidence = Stage.PARAMS_FROZEN, 1.0\n"
    )
    record, _ = _run(tmp_path, source)
    assert "json.dump" in record["changed"] and record["summary"] is None, record


_TWO_RUNS = """
import json, sys
from autograd_course.proving import proofrun
first, second, code, out = json.loads(sys.stdin.read())
proofrun.run_part1(first, code, "<broken code a>", 3, out + ".first")
proofrun.run_part1(second, code, "<broken code b>", 4, out)
"""


def test_a_harness_name_replaced_in_one_run_is_reported_in_every_later_run_of_the_kernel(tmp_path):
    """A learner's answers share a kernel: an answer that replaces the harness's json forges nothing in
    the runs after it, whose records are written by what the harness took when it was made and say so."""
    out = tmp_path / "record.json"
    first = ANSWERS["harness's json replaced"]
    done = _kernel(_TWO_RUNS, first, BUGS["B"].proof, render(variant_for(None, "B")), str(out))
    assert done.returncode == 0, done.stderr[-2000:]
    for record in (json.loads((tmp_path / "record.json.first").read_text()), json.loads(out.read_text())):
        assert "forged" not in record and record["changed"] == ["the grader's run (json)"], record


class _SaysEqual:
    """A stand-in that says it equals whatever it is compared with, and calls what it wraps."""

    def __init__(self, wrapped):
        self.wrapped = wrapped

    def __eq__(self, other):
        return True

    __hash__ = object.__hash__

    def __get__(self, obj, owner=None):
        return self.wrapped.__get__(obj, owner)

    def __call__(self, *args, **kwargs):
        return self.wrapped(*args, **kwargs)


def _module(**names) -> types.ModuleType:
    module = types.ModuleType("m")
    vars(module).update(names)
    return module


def test_the_snapshot_names_what_was_replaced_added_or_deleted_and_nothing_else():
    module = _module(kept=len, replaced=abs, deleted=min)
    before = untouched([module])
    assert before.differ() == []
    module.replaced, module.added = (lambda x: x), 1
    del module.deleted
    assert before.differ() == ["m.added", "m.deleted", "m.replaced"]


def test_a_replacement_that_says_it_is_equal_is_still_named():
    module = _module(step=len)
    before = untouched([module])
    module.step = _SaysEqual(len)
    assert before.differ() == ["m.step"]


def test_a_new_object_at_a_freed_object_s_address_is_still_named():
    """The snapshot holds what each name was bound to, so a replacement made after the old object is
    deleted cannot take its address (and its id) and pass for it."""
    module = _module(made=type("Made", (), {})())
    before = untouched([module])
    del module.made
    module.made = type(before.saved[0][2]["made"])()
    assert before.differ() == ["m.made"]


def test_a_submodule_imported_meanwhile_is_no_change_unless_the_names_are_the_harness_s():
    module, submodule = _module(), types.ModuleType("m.sub")
    watched, own = untouched([module]), Untouched([("the grader's run ({})", vars(module))], submodules=False)
    module.sub = submodule
    assert watched.differ() == [] and own.differ() == ["the grader's run (sub)"]
    module.sub = len
    assert watched.differ() == ["m.sub"]


def test_a_patch_that_says_it_is_equal_is_seen_while_the_fix_runs():
    """Part 2 compares while the fix trains: a stand-in for Adam.step that passes for the original under
    `==`, put back before the step returns, is named as a patch all the same."""
    given = given_namespace(render(variant_for(None, "B")), "<broken code>", 0)  # trains with Adam
    adam = torch.optim.Adam

    def patched_step(model, optimizer, inputs, targets):
        original = vars(adam)["step"]
        adam.step = _SaysEqual(original)
        try:
            return given["broken_step"](model, optimizer, inputs, targets)
        finally:
            adam.step = original

    trace = fixrun.collect_fix_trace(given["broken_setup"], patched_step, 0, "cpu")
    assert trace.get("patched") == ["Adam.step"], trace.get("patched")


def test_the_graders_own_trainings_run_unwatched_and_a_learners_run_watched(monkeypatch):
    """The watch compares about two thousand names at every hook, about half a training's time: the
    grader's own trainings of its own code (parts.broken_trace, parts.reference_reach), where no
    learner code runs, go without it; the training of a fix keeps it."""
    from autograd_instructor.challenge import parts

    class Watched(Exception):
        pass

    def refuse(self):
        raise Watched

    monkeypatch.setattr(fixrun._Untouched, "__init__", refuse)
    variant = variant_for(None, "B")
    assert "losses" in parts.broken_trace.__wrapped__(variant, 0)
    assert parts.reference_reach.__wrapped__(variant, 0) > 0
    given = given_namespace(render(variant), "<broken code>", 0)
    with pytest.raises(Watched):
        fixrun.collect_fix_trace(given["broken_setup"], given["broken_step"], 0, "cpu")


def test_part_one_watches_what_part_two_does_and_an_optimizer_built_first_is_no_change(tmp_path):
    """Both parts leave torch's optimizer classes and nn.Linear as they are (harness_core.watched_objects):
    a part-1 answer that replaces RMSprop's step is named; one that only builds an RMSprop, for the first
    time in the kernel, changes nothing (torch wraps a class's step when it is first built)."""
    proof = "stage, evidence = Stage.PARAMS_FROZEN, 1.0\n"
    built, _ = _run(tmp_path, "torch.optim.RMSprop(broken_setup(seed, device)[0].parameters())\n" + proof)
    patched, _ = _run(tmp_path, "torch.optim.RMSprop.step = lambda self, closure=None: None\n" + proof)
    assert built["changed"] == [] and patched["changed"] == ["RMSprop.step"], (built, patched)
