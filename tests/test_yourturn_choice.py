"""The letter checks: one reason among plausible ones, a set of snippets judged by a computed truth, and the
guard every check taking a set of names or letters uses."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from autograd_course.checks import Outcome
from autograd_course.yourturn import activities
from autograd_course.yourturn.choice import letter_of, letters_of, one_reason, strings_of, which_ones


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


def test_strings_of_accepts_every_collection_of_strings_and_nothing_else() -> None:
    for answer in ({"a", "b"}, frozenset({"a", "b"}), ["b", "a", "a"], ("a", "b")):
        assert strings_of(answer) == {"a", "b"}
    assert strings_of(set()) == set()
    for malformed in ("ab", {"a", 1}, [None], 3, None, {"a": True}):
        assert strings_of(malformed) is None


def _truth_b_d() -> dict[str, bool]:
    return {"a": False, "b": True, "c": False, "d": True}


def test_which_ones_counts_the_left_out_right_options_without_naming_them() -> None:
    outcome, message = which_ones(_truth_b_d, "raise")({"b"})
    assert outcome is Outcome.INCORRECT
    assert message == "all you chose are right, but 1 right option is missing"


def test_which_ones_explains_a_wrong_choice_by_its_own_reason() -> None:
    why = {"a": "a sum saves nothing", "c": "c is constant"}
    outcome, message = which_ones(_truth_b_d, "raise", why)({"a", "c"})
    assert outcome is Outcome.INCORRECT
    assert message == (
        "(a) does not raise: a sum saves nothing; (c) does not raise: c is constant;"
        " 2 right options are missing"
    )
    assert which_ones(_truth_b_d, "raise")({"a", "b", "d"}) == (Outcome.INCORRECT, "(a) does not raise")


def test_which_ones_gives_every_reason_with_the_correct_answer() -> None:
    why = {"a": "saves nothing", "b": "saves x", "c": "is constant", "d": "saves its output"}
    assert which_ones(_truth_b_d, "raise", why)({"b", "d"}) == (
        Outcome.CORRECT,
        "(b), (d): exactly the ones that raise. (a) saves nothing; (b) saves x; (c) is constant;"
        " (d) saves its output.",
    )


def test_choice_checks_say_what_they_offer() -> None:
    assert which_ones(_truth_b_d, "raise").options() == ["a", "b", "c", "d"]
    assert one_reason("b", {"b": "yes", "a": "no"}).options() == ["a", "b"]


@pytest.mark.parametrize("answer", [{"e"}, {"b", "d", "e"}, "bz", 3, ["bd"], None, {"b": True}])
def test_which_ones_rejects_letters_outside_the_options_and_malformed_answers(answer: object) -> None:
    outcome, message = which_ones(_truth_b_d, "raise")(answer)
    assert outcome is Outcome.INCORRECT
    assert message == f"expected a set of letters among a, b, c, d, such as {{'a'}}, got {answer!r}"


@pytest.mark.parametrize("answer", ["db", {"B", "d"}, frozenset("bd"), ["d", "b"], ("b", "d"), "b, d"])
def test_which_ones_accepts_the_right_set_written_any_way(answer: object) -> None:
    assert which_ones(_truth_b_d, "raise")(answer) == (
        Outcome.CORRECT,
        "(b), (d): exactly the ones that raise.",
    )


def test_which_ones_takes_its_options_and_truth_from_each_run_of_the_truth() -> None:
    truth = _truth_b_d()
    check = which_ones(lambda: dict(truth), "raise")
    assert check({"e"})[0] is Outcome.INCORRECT
    truth["e"] = True  # a new option: one entry, and the check offers and expects it
    assert check({"b", "d", "e"})[0] is Outcome.CORRECT
    truth["d"] = False  # the truth is computed at each check, never stored
    assert check({"b", "e"})[0] is Outcome.CORRECT
    truth.update(b=False, e=False)
    assert check(set()) == (Outcome.CORRECT, "none: exactly the ones that raise.")


def _lesson_01_checks() -> dict[str, Callable]:
    return {activity.id: activity.check for activity in activities("01")}


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [(frozenset({"a", "c"}), Outcome.CORRECT), (frozenset({"a"}), Outcome.INCORRECT)],
)
def test_lesson_01_judges_a_frozenset_of_letters(answer: frozenset, outcome: Outcome) -> None:
    verdict, message = _lesson_01_checks()["01.2"](answer)
    assert verdict is outcome and not message.startswith("expected")


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        (frozenset({"features", "classifier.weight", "classifier.bias"}), Outcome.CORRECT),
        (frozenset({"features"}), Outcome.INCORRECT),
    ],
)
def test_lesson_01_judges_a_frozenset_of_names(answer: frozenset, outcome: Outcome) -> None:
    import torch
    from torch import nn

    torch.manual_seed(0)
    model = nn.ModuleDict({"encoder": nn.Linear(4, 8), "classifier": nn.Linear(8, 1)})
    inputs, labels = torch.randn(16, 4), torch.randn(16, 1)
    verdict, message = _lesson_01_checks()["01.1"](answer, model, inputs, labels)
    assert verdict is outcome and not message.startswith("expected")
