"""The same answer across learners with different variants is listed for the instructor, names aside;
and a solution() call is counted as a view from the source, even with its output cleared."""

from __future__ import annotations

import json

from autograd_instructor.challenge import PARTS, variant_for
from autograd_instructor.grading.copies import PUBLIC, answer_digest, flag_copies
from autograd_instructor.grading.grade import Record

FIX = "def fixed_compute_loss(model, inputs, targets):\n    return F.mse_loss(model(inputs), targets)\n"
RENAMED = "def fixed_compute_loss(m, x, y):\n    # mine\n    return F.mse_loss(m(x), y)\n"
OTHER = (
    "def fixed_compute_loss(model, inputs, targets):\n    return ((model(inputs) - targets) ** 2).mean()\n"
)


def _flag(answers: dict[str, tuple[str, str]]) -> dict[str, list[str]]:
    records = [Record(s, "A", 2, "passed", "", student=s) for s in answers]
    flag_copies(records, {(s, "A", 2): (answer_digest(src), v) for s, (src, v) in answers.items()})
    return {r.student: r.flags for r in records}


def test_renamed_copies_across_variants_are_listed_and_other_answers_are_not():
    flags = _flag({"ada": (FIX, "v1"), "bob": (RENAMED, "v2"), "cy": (OTHER, "v3")})
    assert flags["ada"] == ["the same answer as bob (another variant)"]
    assert flags["bob"] == ["the same answer as ada (another variant)"]
    assert flags["cy"] == []


def test_the_same_answer_to_the_same_variant_is_not_listed():
    assert _flag({"ada": (FIX, "v1"), "bob": (RENAMED, "v1")}) == {"ada": [], "bob": []}


def test_the_public_default_solution_counts_as_another_learner():
    default = PARTS[2]._solution(variant_for(None, "A"))
    own = json.dumps(variant_for(None, "A").to_json())
    flags = _flag({"ada": (default, "v1"), "bob": (default, own)})
    assert flags["ada"] == [f"the same answer as bob, {PUBLIC} (another variant)"]
    assert flags["bob"] == ["the same answer as ada (another variant)"], "the default variant's own"


def test_a_solution_call_whose_output_was_cleared_still_counts_as_viewed():
    from solved import committed_solution

    from autograd_instructor.grading.grade import usage_of

    nb = committed_solution("A")
    scratch = nb.cells[-1].copy()
    scratch.cell_type, scratch.outputs = "code", []
    scratch.source = "# ex.part1.solution() would show it\nex.part2.solution()"
    nb.cells.append(scratch)
    assert ("A", 2, "solution", 1) in usage_of(nb) and ("A", 1, "solution", 1) not in usage_of(nb)
