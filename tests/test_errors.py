"""expect_error: swallows the expected error with one printed line, fails loudly otherwise."""

import pytest

from helpers import ExpectedError, expect_error


def test_matching_error_is_swallowed_with_one_line(capsys):
    with expect_error(RuntimeError, r"element \d of tensors") as caught:
        raise RuntimeError("element 0 of tensors does not require grad\nsecond line\nthird")
    assert capsys.readouterr().out == "RuntimeError: element 0 of tensors does not require grad\n"
    assert isinstance(caught, ExpectedError)
    assert isinstance(caught.exception, RuntimeError)
    assert repr(caught) == r"expect_error(RuntimeError, 'element \\d of tensors', caught RuntimeError)"


def test_subclasses_match_and_the_real_type_is_printed(capsys):
    with expect_error(LookupError, "missing"):
        raise KeyError("missing")
    assert capsys.readouterr().out == "KeyError: 'missing'\n"


def test_empty_message_prints_the_type_alone(capsys):
    with expect_error(ValueError):
        raise ValueError()
    assert capsys.readouterr().out == "ValueError\n"


def test_quiet_prints_nothing(capsys):
    with expect_error(ZeroDivisionError, "division", quiet=True):
        1 / 0  # noqa: B018
    assert capsys.readouterr().out == ""


def test_nothing_raised_is_an_assertion_error():
    nothing = "expected RuntimeError matching 'x', but nothing was raised"
    with pytest.raises(AssertionError, match=nothing), expect_error(RuntimeError, "x"):
        pass


def test_another_type_is_an_assertion_error_chained_to_it():
    other = "expected RuntimeError matching '', got TypeError: bad$"
    with pytest.raises(AssertionError, match=other) as e, expect_error(RuntimeError):
        raise TypeError("bad\nmore")
    assert isinstance(e.value.__cause__, TypeError)


def test_a_message_that_does_not_match_is_an_assertion_error():
    mismatch = "expected RuntimeError matching 'does not require grad', got message: 'something else'"
    with pytest.raises(AssertionError, match=mismatch), expect_error(RuntimeError, "does not require grad"):
        raise RuntimeError("something else")


def test_nothing_is_printed_when_it_fails(capsys):
    with pytest.raises(AssertionError), expect_error(RuntimeError, "x"):
        raise RuntimeError("y")
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("bad", ["RuntimeError", RuntimeError("x"), int, None])
def test_a_non_exception_class_is_a_clear_error(bad):
    with pytest.raises(TypeError, match="expected an exception class such as RuntimeError"):
        expect_error(bad)


def test_a_bad_pattern_is_a_clear_error_before_the_body_runs():
    with pytest.raises(ValueError, match=r"expected match to be a valid regular expression: '\(unclosed'"):
        expect_error(RuntimeError, "(unclosed")
    with pytest.raises(TypeError, match="expected match to be a regular expression string, got NoneType"):
        expect_error(RuntimeError, None)
