"""Per-learner variants: deterministic across processes, drawn from the whole catalogue, in varied
code shapes that a diff against a normal loop cannot see through; the learner file."""

from __future__ import annotations

import difflib
import json
import os
import subprocess
import sys
from itertools import pairwise

import pytest
import torch
import torch.nn.functional as F
from learner import run_cell

import helpers
from autograd_course.protocol import LEARNER_ENV
from autograd_instructor.challenge import (
    EXERCISES,
    PARTS,
    Outcome,
    Variant,
    read_learner,
    variant_for,
    variants,
    write_learner,
)
from autograd_instructor.challenge.catalogue import BUGS, drawable_bugs, fixed_code, render
from autograd_instructor.challenge.exercise import Challenge
from autograd_instructor.challenge.variants import SLOTS, Shape, shapes
from helpers import Stage, make_tiny_problem

LEARNERS = [f"student-{i:03d}" for i in range(300)]
MYSTERIES = [e for e, x in EXERCISES.items() if x.mystery]


def test_the_draw_is_the_same_in_another_process_with_another_hash_seed():
    # the draw is a pure function of sha256 digests: compute them in a bare interpreter (variants.py
    # loaded by path, so no torch) with another hash seed, and compare with this process's draws
    cases = [("ada@example.org", e, "shape") for e in EXERCISES] + [("ada", "M1", b) for b in BUGS]
    script = (
        "import importlib.util, json, sys\n"
        "spec = importlib.util.spec_from_file_location('v', sys.argv[1])\n"
        "v = sys.modules['v'] = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(v)\n"
        "cases = json.loads(sys.argv[2])\n"
        "print(json.dumps([[v.digest(*c), list(v.shape_number(v.digest(*c)).choices)] for c in cases]))\n"
    )
    env = dict(os.environ, PYTHONHASHSEED="12345")
    args = [sys.executable, "-c", script, variants.__file__, json.dumps(cases)]
    out = subprocess.run(args, env=env, capture_output=True, text=True, check=True)
    there = json.loads(out.stdout)
    here = [[variants.digest(*c), list(variants.shape_number(variants.digest(*c)).choices)] for c in cases]
    assert there == here
    for who, ex_id, _ in cases[: len(EXERCISES)]:  # and the shape drawn is the one the digest decodes to
        assert list(variant_for(who, ex_id).shape.choices) == here[list(EXERCISES).index(ex_id)][1]


def test_no_learner_gets_the_committed_default_variant():
    for ex_id, ex in EXERCISES.items():
        assert variant_for(None, ex_id) == Variant(ex.bug, Shape())


def test_mystery_rounds_cover_the_catalogue_and_differ_within_a_learner():
    drawn = {who: [variant_for(who, m) for m in MYSTERIES] for who in LEARNERS}
    for mine in drawn.values():
        assert len({v.bug for v in mine}) == len(MYSTERIES)
    assert {v.bug for vs in drawn.values() for v in vs} == set(drawable_bugs())
    assert drawable_bugs() == [b for b in BUGS if BUGS[b].stage in Stage.__members__]
    side_by_side = sum(drawn[a][0] != drawn[b][0] for a, b in pairwise(LEARNERS))
    assert side_by_side == len(LEARNERS) - 1  # the shape alone already tells neighbours apart
    named = [e for e, x in EXERCISES.items() if not x.mystery]  # named exercises keep their bug
    assert all(variant_for(who, e).bug == EXERCISES[e].bug for who in LEARNERS[:20] for e in named)


def test_every_slot_choice_is_drawn():
    seen = {slot: set() for slot in SLOTS}
    for who in LEARNERS:
        for e in EXERCISES:
            for slot, choice in zip(SLOTS, variant_for(who, e).shape.choices):
                seen[slot].add(choice)
    assert all(seen[s] == set(range(len(v))) for s, v in SLOTS.items())


def _changed_lines(a: str, b: str) -> int:
    return sum(1 for d in difflib.ndiff(a.splitlines(), b.splitlines()) if d[:1] in "+-")


def test_a_diff_against_a_normal_loop_does_not_point_at_the_bug():
    plain = fixed_code(Variant("A"))  # the normal loop of the course
    hidden = 0
    for who in LEARNERS[:100]:
        v = variant_for(who, "M1")
        own = _changed_lines(render(v), fixed_code(v))  # the bug's own lines
        hidden += _changed_lines(render(v), plain) > own + 2
    assert hidden >= 90, f"only {hidden} of 100 drawn variants differ from a normal loop in more than the bug"


@pytest.mark.parametrize("bug", drawable_bugs())
def test_the_declared_solutions_pass_in_a_non_default_shape(bug):
    variant = Variant(bug, Shape(tuple(len(v) - 1 for v in SLOTS.values())))
    ns = {"seed": 0, "device": "cpu", "torch": torch, "F": F}
    ns |= {name: getattr(helpers, name) for name in helpers.__all__}
    ex = Challenge("M1", ns, variant=variant)
    ns["inputs"], ns["targets"] = make_tiny_problem(0)
    ns["broken_setup"], ns["compute_loss"], ns["broken_step"] = ex.broken()
    run_cell(ns, PARTS[1].solution(variant))
    assert ex.part1.verdict().outcome is Outcome.CORRECT, ex.part1.verdict().message


@pytest.mark.parametrize("optimizer", range(len(SLOTS["optimizer"])))
def test_every_optimizer_choice_trains_when_fixed(optimizer):
    choices = [0] * len(SLOTS)
    choices[0] = optimizer
    variant = Variant("G", Shape(tuple(choices)))  # the other slots change no number
    ns = {"seed": 0, "device": "cpu", "torch": torch, "F": F, "TinyNet": helpers.TinyNet}
    ex = Challenge("M1", ns, variant=variant)
    run_cell(ns, PARTS[2].solution(variant))
    assert ex.part2.verdict().outcome is Outcome.CORRECT, ex.part2.verdict().message


def test_shapes_are_all_distinct_and_json_round_trips():
    every = shapes()
    assert len(set(every)) == len(every) > 1000
    v = variant_for("x", "M2")
    assert Variant.from_json(json.loads(json.dumps(v.to_json()))) == v
    with pytest.raises(ValueError, match="not a code shape"):
        Variant.from_json({"bug": "A", "shape": [9] * len(SLOTS)})
    with pytest.raises(ValueError, match="expected"):
        Variant.from_json({"bug": "A"})
    with pytest.raises(ValueError, match="learner id"):
        variant_for("  ", "A")


def test_the_learner_comes_from_the_environment_then_the_nearest_course_json(tmp_path, monkeypatch):
    monkeypatch.delenv(LEARNER_ENV, raising=False)
    nested = tmp_path / "my-work" / "deep"
    nested.mkdir(parents=True)
    assert read_learner(nested) is None
    (tmp_path / "course.json").write_text(json.dumps({"learner": "outer", "theme": "dark"}))
    assert read_learner(nested) == "outer"
    path = write_learner(tmp_path / "my-work", "inner ")
    assert json.loads(path.read_text()) == {"learner": "inner"} and read_learner(nested) == "inner"
    write_learner(tmp_path, "again")
    assert json.loads((tmp_path / "course.json").read_text()) == {"learner": "again", "theme": "dark"}
    monkeypatch.setenv(LEARNER_ENV, "from-env")
    assert read_learner(nested) == "from-env"
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "course.json").write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        write_learner(tmp_path / "bad", "x")
    with pytest.raises(ValueError, match="non-empty"):
        write_learner(tmp_path, "")
