"""The letter checks: one reason among plausible ones, and a set of snippets judged by a computed truth."""

from __future__ import annotations

import pytest

from autograd_course.checks import Outcome
from autograd_course.yourturn.choice import letter_of, letters_of, one_reason, which_ones


@pytest.mark.parametrize(
    ("answer", "letter"), [("b", "b"), (" B ", "b"), ("(c)", "c"), ("ab", None), (2, None)]
)
def test_letter_of_reads_one_letter_in_any_case(answer: object, letter: str | None) -> None:
    assert letter_of(answer) == letter


@pytest.mark.parametrize(
    ("answer", "letters"),
    [
        ({"a", "C"}, {"a", "c"}),
        ("bd", {"b", "d"}),
        (["b"], {"b"}),
        ("b, d", {"b", "d"}),
        (["ab"], None),
        (3, None),
    ],
)
def test_letters_of_reads_sets_lists_and_strings(answer: object, letters: set[str] | None) -> None:
    assert letters_of(answer) == letters


def test_one_reason_explains_the_chosen_option_right_or_wrong() -> None:
    check = one_reason("b", {"a": "not this, because X", "b": "this, because Y"})
    assert check("B") == (Outcome.CORRECT, "(b) this, because Y")
    assert check("a") == (Outcome.INCORRECT, "(a) not this, because X")
    outcome, message = check("z")
    assert outcome is Outcome.INCORRECT and "a, b" in message


def test_which_ones_compares_with_the_truth_it_computes_when_judging() -> None:
    truth = {"b", "d"}
    check = which_ones(lambda: set(truth), "abcd", "raise")
    assert check("db")[0] is Outcome.CORRECT
    outcome, message = check({"b"})
    assert outcome is Outcome.INCORRECT and "d" in message
    outcome, message = check({"b", "d", "a"})
    assert outcome is Outcome.INCORRECT and "a" in message
    assert check({"e"})[0] is Outcome.INCORRECT  # not among the options
    truth.discard("d")  # the truth is computed at each check, never stored
    assert check({"b"})[0] is Outcome.CORRECT
