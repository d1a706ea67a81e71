"""The harnesses' shared core: each shared name written once, both harnesses built from it as the
grader's kernel builds them, and the watch's flags raised for the dressed-up answers and never for
honest ones. No kernel: the harness functions run in this process, or the harness cells in a plain
Python process that cannot import the course."""

from __future__ import annotations

import ast
import builtins
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from attacks import ATTACKS, HONEST, Target

import helpers
from autograd_course import graded, harness_core
from autograd_course.answer_cells import GIVEN as CELLS_GIVEN
from autograd_course.exercises import EXERCISES
from autograd_course.fixing import fixrun
from autograd_course.harness_core import FIXABLE, GIVEN, RUN_TIME_CODE, given_namespace, may_catch
from autograd_course.proving import proofrun
from autograd_instructor.challenge import PARTS, NotAttempted, variant_for
from autograd_instructor.challenge.answer_source import answer_source
from autograd_instructor.challenge.catalogue import FIXABLE as CATALOGUE_FIXABLE
from autograd_instructor.challenge.catalogue import render
from autograd_instructor.grading.fixcells import fix_cells, run_here
from autograd_instructor.grading.judging import judge_part
from autograd_instructor.grading.proofcells import proof_cells

_ATTACK = {a.name: a for a in ATTACKS}
_PYTHON_OWN = {"get_ipython", *dir(builtins)}


def _flags(judged) -> list[str]:
    return [f for f in judged.flags if not f.startswith("warning")]


def test_the_given_names_are_what_each_harness_gives_an_answer():
    code, toolkit = render(variant_for(None, "A")), set(helpers.__all__)
    part1 = set(proofrun.answer_namespace(code, "<broken code>", 0)) | {"stage", "evidence"}
    part2 = set(given_namespace(code, "<broken code>", 0)) | {"stage", "evidence"}
    for given in (part1, part2):
        assert given - {"__builtins__", "__name__"} == (GIVEN - _PYTHON_OWN) | toolkit
    assert CELLS_GIVEN is GIVEN


def test_each_shared_name_is_the_cores_own():
    assert CATALOGUE_FIXABLE is FIXABLE
    assert NotAttempted is graded.NotAttempted is harness_core.NotAttempted
    assert proofrun.answer_namespace(render(variant_for(None, "A")), "<b>", 0)["NotAttempted"] is NotAttempted
    assert set(harness_core.FIX_SIGNATURES) == set(FIXABLE) == set(PARTS[2].answers)
    with pytest.raises(harness_core.NotAttemptedError):
        NotAttempted()


def _imported(module) -> set[str]:
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    found = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    return found | {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}


def test_the_core_and_both_harnesses_import_only_what_the_kernel_has():
    """The standard library, torch and the toolkit; the harnesses also the core, sent before them."""
    for module, allowed in ((harness_core, set()), (proofrun, {"autograd_course.harness_core"})):
        for name in _imported(module) | (_imported(fixrun) if module is proofrun else set()):
            root = name.split(".")[0]
            assert name in allowed or root in {"torch", "helpers", "__future__"} | sys.stdlib_module_names, (
                name
            )


_NO_COURSE = """\
import importlib.abc, sys
class _NoCourse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] == 'autograd_course':
            raise ImportError('no course here: ' + name)
sys.meta_path.insert(0, _NoCourse())
"""
_PROBE = "\nprint('course:', sorted(m for m in sys.modules if 'autograd_course' in m))\n"


def test_both_harness_cells_build_the_core_where_the_course_cannot_be_imported(tmp_path):
    """The cells as the grader sends them, in a process that refuses every import of the course: the
    harnesses import the core there, and no course module is left for an answer to find."""
    fix = "def fixed_compute_loss(model, inputs, targets):\n    return F.mse_loss(model(inputs), targets)\n"
    proof = "evidence = broken_setup(seed, device)[0].fc1.weight.grad is None\nstage = Stage.OK\n"
    cells = [
        *proof_cells({("A", 1): answer_source(proof, 1)}, None, tmp_path),
        *fix_cells({("A", 2): answer_source(fix, 2)}, None, tmp_path),
    ]
    code = _NO_COURSE + "\n".join(c.source for c in cells) + _PROBE
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-1500:]
    assert "course: []" in done.stdout
    assert (
        len(list(tmp_path.glob("A-part1-hidden*.json")))
        == len(list(tmp_path.glob("A-part2-hidden*.pt")))
        == 2
    )
    assert json.loads((tmp_path / "A-part1-hidden0.json").read_text())["reached"] == []
    assert torch.load(tmp_path / "A-part2-hidden0.pt", weights_only=True)["reached"] == []


def _prove(ex_id: str, source: str, prelude=()) -> dict:
    variant = variant_for(None, ex_id)
    code = render(variant)
    proofrun.warm_up(code, "<broken code>")
    return proofrun.prove(answer_source(source, 1).source, code, "<broken code>", 0, prelude)


def _target(ex_id: str) -> Target:
    return Target(ex_id, variant_for(None, ex_id), variant_for("classmate", ex_id))


def test_code_an_answer_makes_at_run_time_is_reported():
    source = _ATTACK["__builtins__ exec"].write(_target("A"))[1]
    assert RUN_TIME_CODE in _prove("A", source)["reached"]
    assert RUN_TIME_CODE in _prove("A", "stage = eval('Stage.OK')\nevidence = 1.0\n")["reached"]
    assert (
        RUN_TIME_CODE in _prove("A", "evidence = 1.0\nstage = Stage.OK\n", [(3, "exec('x = 1')")])["reached"]
    )


def test_torch_and_the_standard_library_compiling_their_own_code_is_not_the_answers():
    """A dataclass and a namedtuple are compiled by the standard library, an import by importlib."""
    source = (
        "import dataclasses, collections, fractions\n@dataclasses.dataclass\nclass Row:\n    x: int = 1\n"
        "Pair = collections.namedtuple('Pair', 'a b')\nstage, evidence = Stage.OK, float(Row().x)\n"
    )
    assert _prove("A", source)["reached"] == []


@pytest.mark.parametrize("ex_id", list(EXERCISES))
def test_honest_proofs_reach_for_nothing(ex_id):
    variant = variant_for(None, ex_id)
    reference = PARTS[1]._solution(variant)
    for source in (reference, *(style(reference, 1) for style in HONEST.values())):
        run = _prove(ex_id, source)
        assert run["reached"] == [] and run["error"] is None, run


def test_a_process_started_through_ctypes_is_refused_and_reported():
    run = _prove("A", _ATTACK["process through ctypes"].write(_target("A"))[1])
    assert any("system()" in r and "ctypes" in r for r in run["reached"]), run["reached"]
    assert run["error"]["name"] == "PermissionError" and run["error"]["line"] == 2
    looked_up = (
        "import ctypes\npid = ctypes.CDLL(None).getpid()\nstage, evidence = Stage.OK, float(pid > 0)\n"
    )
    assert _prove("A", looked_up)["reached"] == []  # a C function that starts nothing


def _judge2(tmp_path, ex_id: str, source: str):
    answer = answer_source(source, 2)
    run_here(ex_id, None, answer, tmp_path)
    return judge_part(tmp_path, ex_id, 2, answer, None)


def test_part_two_is_watched_too(tmp_path):
    judged = _judge2(tmp_path, "A", _ATTACK["__builtins__ exec"].write(_target("A"))[2])
    assert judged.verdict.status == "failed" and RUN_TIME_CODE in judged.problem
    assert any(RUN_TIME_CODE in f for f in _flags(judged))


def test_a_ctypes_process_in_part_two_fails_it_flagged(tmp_path):
    judged = _judge2(tmp_path, "A", _ATTACK["process through ctypes"].write(_target("A"))[2])
    assert judged.verdict.status == "failed" and "ctypes" in judged.problem
    assert any("system()" in f for f in _flags(judged))


def test_the_broken_step_kept_in_try_is_flagged(tmp_path):
    """Exercise A's default variant: the broken step raises, the textbook step in `except` trains."""
    judged = _judge2(tmp_path, "A", _ATTACK["broken step in try, textbook in except"].write(_target("A"))[2])
    caught = [f for f in _flags(judged) if "caught an exception" in f]
    assert caught and "RuntimeError in fixed_step" in caught[0], judged.flags


_GUARDED = (
    "def fixed_compute_loss(model, inputs, targets):\n"
    "    try:\n        out = model(inputs)\n    except RuntimeError:\n        raise\n"
    "    with torch.enable_grad():\n        return F.mse_loss(out, targets)\n"
)


def test_an_honest_fix_with_try_and_with_is_traced_and_not_flagged(tmp_path):
    assert may_catch(_GUARDED)
    judged = _judge2(tmp_path, "A", _GUARDED)
    assert judged.verdict.status == "passed" and _flags(judged) == [], (judged.verdict.message, judged.flags)


@pytest.mark.parametrize("ex_id", ["A", "D", "M1"])
def test_honest_fixes_are_not_flagged(tmp_path, ex_id):
    reference = PARTS[2]._solution(variant_for(None, ex_id))
    for k, source in enumerate((reference, *(style(reference, 2) for style in HONEST.values()))):
        (tmp_path / str(k)).mkdir()
        judged = _judge2(tmp_path / str(k), ex_id, source)
        assert judged.verdict.status == "passed", judged.verdict.message
        assert _flags(judged) == [], judged.flags


def test_a_fix_using_a_helper_from_an_earlier_cell_is_not_flagged(tmp_path):
    helper = "def my_loss(out, y):\n    return F.mse_loss(out, y)\n"
    fix = "def fixed_compute_loss(model, inputs, targets):\n    return my_loss(model(inputs), targets)\n"
    answer = answer_source(fix, 2, 5, [(3, helper)])
    assert [n for n, _ in answer.prelude] == [3]
    run_here("A", None, answer, tmp_path)
    judged = judge_part(tmp_path, "A", 2, answer, None)
    assert judged.verdict.status == "passed" and _flags(judged) == [], judged.flags


def test_only_code_that_can_catch_is_traced():
    assert not may_catch("def fixed_step(m, o, x, y):\n    return [p for p in m.parameters()]\n")
    assert may_catch("x = 1", "def f():\n    with open('x'):\n        pass\n")
    trace = fixrun.train(render(variant_for(None, "A")), "<b>", {}, 0, trace_catches=True)
    assert "swallowed" not in trace  # the given code alone: nothing of the learner's to trace
