"""The your-turn engine: one verdict per check, never a traceback, hints that say how many there are."""

from __future__ import annotations

import pytest

from autograd_course.checks import Outcome, Verdict
from autograd_course.yourturn import (
    Activity,
    activities,
    correct,
    incorrect,
    lessons_with_activities,
    your_turn,
)
from autograd_course.yourturn.engine import MIME, verdict_of


def _positive(value: object) -> tuple:
    if value > 0:  # raises TypeError for a string: the engine must turn that into "incorrect"
        return correct("positive")
    return incorrect(f"you set {value!r}, which is not positive")


DEMO = Activity(
    id="99.1",
    task="Set answer to a positive number.",
    names=("answer",),
    check=_positive,
    hints=("Any number above zero.", "Try 1."),
    solution="answer = 1",
)


def test_unset_or_ellipsis_is_not_attempted() -> None:
    assert DEMO.judge({}).outcome is Outcome.NOT_ATTEMPTED
    result = DEMO.judge({"answer": ...})
    assert result.outcome is Outcome.NOT_ATTEMPTED
    assert (
        result.text() == "Your turn 99.1: not attempted. set `answer` in the cell above, then run this cell"
    )


def test_correct_and_incorrect_name_what_was_seen() -> None:
    assert DEMO.judge({"answer": 3}).outcome is Outcome.CORRECT
    wrong = DEMO.judge({"answer": -2})
    assert wrong.outcome is Outcome.INCORRECT and "you set -2" in wrong.message


def test_a_check_that_raises_becomes_incorrect_naming_the_error() -> None:
    result = DEMO.judge({"answer": "seven"})
    assert result.outcome is Outcome.INCORRECT
    assert result.message.startswith("checking your answer raised TypeError: ")


def test_check_prints_exactly_one_line_outside_jupyter(capsys: pytest.CaptureFixture[str]) -> None:
    namespace: dict[str, object] = {}
    tasks = your_turn("00", namespace)
    tasks.q2.check()
    namespace["predicted_grad"] = 12.0
    tasks.q2.check()
    namespace["predicted_grad"] = 8.0
    tasks.q2.check()
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(".", 2)[1].split(":")[1].strip() for line in lines] == [
        "not attempted",
        "correct",
        "incorrect",
    ]
    assert "the value of x³ itself" in lines[2]


def test_hints_and_out_of_range_levels(capsys: pytest.CaptureFixture[str]) -> None:
    task = your_turn("00", {}).q1
    task.hint()
    task.hint(2)
    task.hint(3)
    task.hint(0)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Hint 1 of 2: ")
    assert out[1].startswith("Hint 2 of 2: ")
    assert out[2] == "Your turn 00.1 has 2 hints: ask for hint(1) or hint(2) (got 3)."
    assert out[3].endswith("(got 0).")


def test_solution_shows_the_declared_code(capsys: pytest.CaptureFixture[str]) -> None:
    your_turn("00", {}).q2.solution()
    assert capsys.readouterr().out == f"Your turn 00.2 · solution:\n{activities('00')[1].solution}\n"


def test_an_unknown_task_names_the_ones_that_exist() -> None:
    with pytest.raises(AttributeError, match="lesson 00 has activities q1, q2, q3; there is no 'q9'"):
        your_turn("00", {}).q9  # noqa: B018


@pytest.mark.parametrize(("lesson", "message"), [("0", "two-digit"), ("98", "declares no your-turn")])
def test_bad_lessons_are_clear_errors(lesson: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        activities(lesson)


def test_namespace_must_be_a_mapping() -> None:
    with pytest.raises(TypeError, match="expected the notebook's globals"):
        your_turn("00", None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"id": "1.1"}, "activity id like '00.1'"),
        ({"names": ("not a name",)}, "Python identifiers"),
        ({"hints": ()}, "1 to 3 hints"),
        ({"solution": " "}, "solution code is empty"),
    ],
)
def test_declarations_are_validated(changes: dict, message: str) -> None:
    fields = {
        "id": "99.1",
        "task": "t",
        "names": ("a",),
        "check": _positive,
        "hints": ("h",),
        "solution": "a = 1",
    }
    with pytest.raises(ValueError, match=message):
        Activity(**{**fields, **changes})


def test_the_mime_bundle_carries_the_outcome_for_tests() -> None:
    bundle = Verdict("00.1", None, Outcome.CORRECT, "ok")._repr_mimebundle_()
    assert bundle["text/plain"] == "Your turn 00.1: correct. ok"
    assert "<b>Your turn 00.1: correct.</b>" in bundle["text/html"]
    assert verdict_of({"data": bundle}) == {"id": "00.1", "outcome": "correct"}
    assert verdict_of({"data": {"text/plain": "x"}}) is None
    assert bundle[MIME]["outcome"] == "correct"


def test_every_declared_lesson_loads_with_consecutive_ids() -> None:
    lessons = lessons_with_activities()
    assert "00" in lessons
    for lesson in lessons:
        declared = activities(lesson)
        assert len(declared) >= 2, f"lesson {lesson} declares {len(declared)} activities; at least two"
        for activity in declared:
            compile(activity.solution, f"<solution {activity.id}>", "exec")


def _needs_model(answer: object, model: object) -> tuple:
    return correct("same") if answer is model else incorrect("another object")


def test_context_names_are_read_from_the_lesson_and_never_make_it_not_attempted() -> None:
    activity = Activity(
        id="99.2",
        task="t",
        names=("answer",),
        check=_needs_model,
        hints=("h",),
        solution="answer = model",
        context=("model",),
    )
    model = object()
    assert activity.judge({"model": model}).outcome is Outcome.NOT_ATTEMPTED
    assert activity.judge({"answer": model, "model": model}).outcome is Outcome.CORRECT
    assert activity.judge({"answer": object(), "model": model}).outcome is Outcome.INCORRECT
    gone = activity.judge({"answer": model})
    assert gone.outcome is Outcome.INCORRECT and "`model` is gone" in gone.message


def _draws_and_switches_off(answer: object) -> tuple:
    import torch

    torch.manual_seed(123)
    torch.randn(5)
    torch.set_grad_enabled(False)
    return correct("ok")


def test_a_check_leaves_the_learners_random_state_and_grad_mode_as_they_were() -> None:
    import torch

    activity = Activity(
        id="99.3",
        task="t",
        names=("answer",),
        check=_draws_and_switches_off,
        hints=("h",),
        solution="answer = 1",
    )
    torch.manual_seed(7)
    expected = torch.randn(3)
    torch.manual_seed(7)
    assert activity.judge({"answer": 1}).outcome is Outcome.CORRECT
    assert torch.is_grad_enabled()
    assert torch.equal(torch.randn(3), expected)
