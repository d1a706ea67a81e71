"""The catalogue and the doctor agree: `diagnose` on every bug's broken code names the stage the catalogue
declares, in every forward shape; each bug lives in the one function its part 2 asks the learner to fix."""

from __future__ import annotations

import pytest

from autograd_instructor.challenge.catalogue import BUGS, FIXABLE, build_broken, fixed_code, render
from autograd_instructor.challenge.parts import function_source
from autograd_instructor.challenge.variants import SLOTS, Shape, Variant
from helpers import diagnose, make_tiny_problem

FORWARD = list(SLOTS).index("forward")


def _shape(forward: int) -> Shape:
    choices = [0] * len(SLOTS)
    choices[FORWARD] = forward
    return Shape(tuple(choices))


def _case(bug: str, forward: int):
    return pytest.param(bug, forward, id=f"{bug}-forward{forward}")


@pytest.mark.parametrize(
    ("bug", "forward"), [_case(b, f) for b in BUGS for f in range(len(SLOTS["forward"]))]
)
def test_diagnose_names_the_stage_the_catalogue_declares(bug, forward):
    code = build_broken(Variant(bug, _shape(forward)))
    model, optimizer = code["broken_setup"](0, "cpu")
    inputs, targets = make_tiny_problem(0)
    got = diagnose(lambda: code["broken_step"](model, optimizer, inputs, targets), model, optimizer, steps=3)
    assert got.stage.name == BUGS[bug].stage, got


@pytest.mark.parametrize("bug", list(BUGS))
def test_each_bug_changes_only_the_function_it_declares(bug):
    variant = Variant(bug, Shape(tuple(min(2, len(v) - 1) for v in SLOTS.values())))
    broken, fixed = render(variant), fixed_code(variant)
    for name in FIXABLE.values():
        same = function_source(broken, name) == function_source(fixed, name)
        assert same is (name != BUGS[bug].where), name
