"""Choice feedback teaches without giving the answer away, swept over every answer a learner could give.

A choice activity is one whose solution names options: a set of strings (`cuts = {"b", "e"}`) or one letter
(`step_sees = "b"`). For each, every wrong answer (each other letter, each other subset of the options) is
checked, and its feedback must be *incorrect*, explain each option it chose that is wrong, and never name a
right option it left out.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from autograd_course.checks import Outcome
from autograd_course.yourturn import Activity, activities, lessons_with_activities


def _lesson_01_model() -> tuple:
    import torch
    from torch import nn

    torch.manual_seed(0)
    model = nn.ModuleDict({"encoder": nn.Linear(4, 8), "classifier": nn.Linear(8, 1)})
    return model, torch.randn(16, 4), torch.randn(16, 1)


CONTEXT: dict[str, Callable[[], tuple]] = {"01.1": _lesson_01_model}  # lesson values a check reads


def _solution_value(activity: Activity) -> Any:
    """The literal the solution assigns (a set of strings or a string), None for any other solution."""
    tree = ast.parse(activity.solution)
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assign):
        return None
    try:
        return ast.literal_eval(tree.body[0].value)
    except ValueError:
        return None


def _choice_activities() -> Iterator[Any]:
    for lesson in lessons_with_activities():
        for activity in activities(lesson):
            value = _solution_value(activity)
            one_letter = isinstance(value, str) and len(value) == 1 and value.isalpha()
            if one_letter or (isinstance(value, set) and all(isinstance(v, str) for v in value)):
                yield pytest.param(activity, value, id=activity.id)


CHOICES = list(_choice_activities())


def names(message: str, option: str) -> bool:
    """Whether feedback names an option: a letter standing alone (not the article "a"), or a whole name."""
    if len(option) > 1:
        return re.search(rf"(?<![\w.]){re.escape(option)}(?![\w])", message) is not None
    article = r"(?<![(])a(?= \w)" if option == "a" else r"(?!)"
    tokens = re.finditer(rf"(?<![\w.'’-]){option}(?![\w'’])", message)
    return any(
        not re.match(article, message[t.start() :]) or message[t.start() - 1 : t.start()] == "("
        for t in tokens
    )


def _wrong_answers(options: list[str], right: Any) -> Iterator[tuple[set[str], set[str]]]:
    """(answer, the right options) for every wrong answer: each other letter, or each other subset."""
    if isinstance(right, str):
        yield from (({o}, {right}) for o in options if o != right)
        return
    for size in range(len(options) + 1):
        for chosen in itertools.combinations(options, size):
            if set(chosen) != right:
                yield set(chosen), right


def test_the_sweep_finds_the_choice_activities_of_every_kind() -> None:
    found = {param.id for param in CHOICES}
    assert {"01.1", "01.2", "02.2", "03.1", "04.2", "12.1"} <= found
    assert not {"00.2", "02.3", "05.2"} & found  # a number, a function, two booleans: not choices


@pytest.mark.parametrize(("activity", "right"), CHOICES)
def test_wrong_choices_are_explained_without_naming_a_left_out_right_option(
    activity: Activity, right: Any
) -> None:
    context = CONTEXT.get(activity.id, tuple)()
    assert hasattr(activity.check, "options"), f"{activity.id}: the check does not say what it offers"
    options = activity.check.options(*context)
    assert (set(right) if isinstance(right, set) else {right}) <= set(options)
    assert activity.check(right, *context)[0] is Outcome.CORRECT
    for answer, right_ones in _wrong_answers(options, right):
        given = next(iter(answer)) if isinstance(right, str) else answer
        outcome, message = activity.check(given, *context)
        assert outcome is Outcome.INCORRECT, (activity.id, answer)
        named = [o for o in sorted(right_ones - answer) if names(message, o)]
        assert not named, f"{activity.id}: answer {sorted(answer)} is told {named}: {message}"
        unexplained = [o for o in sorted(answer - right_ones) if not names(message, o)]
        assert not unexplained, (
            f"{activity.id}: answer {sorted(answer)}, {unexplained} unexplained: {message}"
        )


@pytest.mark.parametrize(
    ("message", "option", "named"),
    [
        ("you chose ['a', 'd']; missed: b", "b", True),
        ("(b) does not raise", "b", True),
        ("a sum needs .grad", "a", False),
        ("(a) a sum needs .grad", "a", True),
        ("chosen but wrong: a", "a", True),
        ("a, c: exactly", "a", True),
        ("1 right option is missing", "b", False),
        ("x.grad and 1e-3", "e", False),
        ("classifier.weight gets one", "classifier.weight", True),
        ("the classifier.weights", "classifier.weight", False),
    ],
)
def test_names_finds_an_option_however_feedback_writes_it(message: str, option: str, named: bool) -> None:
    assert names(message, option) is named
