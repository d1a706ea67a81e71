"""A graded notebook's hints say where to look and what to measure, never the stage: no Stage name, no
stage named in words, no phrase of a stage's description, and the same hints for every bug that lives
in the same function (so they cannot tell two stages apart)."""

from __future__ import annotations

import re

from autograd_course.exercises import EXERCISES
from autograd_course.sealed import entry_key, unseal
from autograd_instructor.challenge.catalogue import BUGS, drawable_bugs
from autograd_instructor.challenge.graded_hints import graded_hints
from autograd_instructor.challenge.secret import learner_token, new_secret
from autograd_instructor.challenge.variants import Variant
from autograd_instructor.classroom.graded_release import variants_data
from helpers import Stage


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


def _names_a_stage(text: str) -> list[str]:
    """Each way text names a stage: its member name, that name in words, four words of its description."""
    lower, words = text.lower(), " ".join(_words(text))
    found = []
    for stage in Stage:
        spoken = " ".join(_words(stage.name.replace("_", " ")))
        if re.search(rf"\b{stage.name.lower()}\b", lower) or f" {spoken} " in f" {words} ":
            found.append(stage.name)
        value = _words(stage.value)
        for k in range(len(value) - 3):
            if f" {' '.join(value[k : k + 4])} " in f" {words} ":
                found.append(f"{stage.name}: {' '.join(value[k : k + 4])}")
    return found


def test_no_graded_hint_names_a_stage():
    for key in drawable_bugs():
        for part in (1, 2):
            for hint in graded_hints(Variant(key), part):
                assert _names_a_stage(hint) == [], (key, part, hint)


def test_the_hints_a_release_ships_name_no_stage():
    secret, ids = new_secret(), ["ada", "bob", "cy"]
    data = variants_data(sorted(EXERCISES), ids, secret)
    entries = [unseal(data["learners"][entry_key(t)], t) for t in (learner_token(secret, i) for i in ids)]
    hints = [h for entry in entries for ex in entry.values() for h in ex["hints1"] + ex["hints2"]]
    assert hints and [h for h in hints if _names_a_stage(h)] == []


def test_bugs_in_the_same_function_get_the_same_hints():
    by_function: dict[str, set] = {}
    for key in drawable_bugs():
        hints = (graded_hints(Variant(key), 1), graded_hints(Variant(key), 2))
        by_function.setdefault(BUGS[key].where, set()).add(hints)
    assert len(by_function) == 3 and all(len(h) == 1 for h in by_function.values())
    stages = {BUGS[k].where: set() for k in drawable_bugs()}
    for k in drawable_bugs():
        stages[BUGS[k].where].add(BUGS[k].stage)
    assert all(len(s) >= 2 for s in stages.values())  # each function's hints cover several stages
    for where, (hints,) in by_function.items():
        assert all(where in h for h in hints[0] + hints[1])  # they say where to look
