"""expect_error: shows the real trimmed traceback of the expected error, fails loudly otherwise."""

import sys

import pytest
import torch

from helpers import ExpectedError, expect_error
from helpers.errors import format_trimmed


def test_matching_error_is_swallowed_and_its_traceback_shown(capsys):
    with expect_error(RuntimeError, r"element \d of tensors") as caught:
        raise RuntimeError("element 0 of tensors does not require grad\nsecond line\nthird")
    out = capsys.readouterr().out
    assert out.startswith("Traceback (most recent call last):\n")
    assert f'  File "{__file__}", line ' in out
    assert '    raise RuntimeError("element 0 of tensors' in out
    assert out.endswith("RuntimeError: element 0 of tensors does not require grad\nsecond line\nthird\n")
    assert isinstance(caught, ExpectedError)
    assert isinstance(caught.exception, RuntimeError)
    assert caught.traceback == out.rstrip("\n")
    assert repr(caught) == r"expect_error(RuntimeError, 'element \\d of tensors', caught RuntimeError)"


def test_torch_frames_are_trimmed_to_the_last_one_without_machine_paths(capsys):
    x = torch.ones(2)
    with expect_error(RuntimeError, "does not require grad"):
        x.sum().backward()
    lines = capsys.readouterr().out.splitlines()
    torch_frames = [line for line in lines if line.startswith('  File "…/torch/')]
    assert len(torch_frames) == 1, lines  # backward() -> _engine_run_backward: only the last is kept
    assert torch_frames[0].endswith("in _engine_run_backward")
    assert "    x.sum().backward()" in lines
    assert lines[-1].startswith("RuntimeError: element 0 of tensors does not require grad")
    assert not any("site-packages" in line for line in lines)


def test_frames_between_the_learner_and_torch_stay_in_order():
    def helper(t):
        return t.view(-1, 5)

    try:
        helper(torch.ones(3))
    except RuntimeError as exc:
        text = format_trimmed(exc)
    names = [line.rsplit(" in ", 1)[1] for line in text.splitlines() if line.startswith("  File")]
    assert names == ["test_frames_between_the_learner_and_torch_stay_in_order", "helper"]
    assert text.splitlines()[-1].startswith("RuntimeError: shape '[-1, 5]' is invalid")


def test_cells_are_named_as_ipython_names_them(monkeypatch, capsys):
    class Compile:
        def __init__(self) -> None:
            self._filename_map = {__file__: 7}

    class Shell:
        compile = Compile()

    ipython = pytest.importorskip("IPython")
    monkeypatch.setattr(ipython, "get_ipython", lambda: Shell())
    assert sys.modules["IPython"] is ipython
    with expect_error(ValueError, "bad"):
        raise ValueError("bad")
    assert "  Cell In[7], line " in capsys.readouterr().out


def test_subclasses_match_and_the_real_type_is_printed(capsys):
    with expect_error(LookupError, "missing"):
        raise KeyError("missing")
    assert capsys.readouterr().out.splitlines()[-1] == "KeyError: 'missing'"


def test_empty_message_prints_the_type_alone(capsys):
    with expect_error(ValueError):
        raise ValueError()
    assert capsys.readouterr().out.splitlines()[-1] == "ValueError"


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
