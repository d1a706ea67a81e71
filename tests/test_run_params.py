"""Parameter typing for `autograd-course run`: values take the type each notebook declares."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograd_instructor.regression import (
    DeclaredParameter,
    ParameterError,
    declared_parameters,
    type_parameters,
)

FIXTURES = Path(__file__).parent / "fixtures" / "run"


@pytest.fixture(scope="module")
def declared() -> dict[str, DeclaredParameter]:
    return declared_parameters(FIXTURES / "params.ipynb")


def test_declared_parameters_are_read_from_the_parameters_cell(declared):
    assert {name: p.kind for name, p in declared.items()} == {
        "seed": "int",
        "device": "str",
        "version": "str",
        "ratio": "float",
        "strict": "bool",
    }
    assert declared["device"].default_value() == "cpu"


def test_a_notebook_without_a_parameters_cell_declares_nothing():
    assert declared_parameters(FIXTURES / "passes.ipynb") == {}


def test_values_take_the_declared_type(declared):
    raw = {"seed": "3", "device": "cuda", "version": "2.10", "ratio": "0.5", "strict": "true"}
    values, undeclared = type_parameters(raw, declared)
    assert values == {"seed": 3, "device": "cuda", "version": "2.10", "ratio": 0.5, "strict": True}
    assert [type(v) for v in values.values()] == [int, str, str, float, bool]
    assert undeclared == []


def test_a_number_declared_as_str_stays_a_string(declared):
    values, _ = type_parameters({"version": "3", "device": "1.5"}, declared)
    assert values == {"version": "3", "device": "1.5"}


def test_undeclared_names_are_returned_not_typed(declared):
    values, undeclared = type_parameters({"seed": "1", "lr": "0.1", "epochs": "2"}, declared)
    assert values == {"seed": 1}
    assert undeclared == ["lr", "epochs"]


@pytest.mark.parametrize(
    ("name", "text"), [("seed", "three"), ("seed", "2.5"), ("ratio", "x"), ("strict", "maybe")]
)
def test_a_value_of_the_wrong_type_is_a_clear_error(declared, name, text):
    with pytest.raises(ParameterError, match=rf"nb\.ipynb declares {name}: \w+; got '{text}'"):
        type_parameters({name: text}, declared, "nb.ipynb")


def test_without_an_annotation_the_default_literal_gives_the_type():
    declared = {
        "steps": DeclaredParameter("steps", "None", "10"),
        "name": DeclaredParameter("name", "None", "'tiny'"),
        "shape": DeclaredParameter("shape", "None", "(2, 3)"),
    }
    values, _ = type_parameters({"steps": "4", "name": "7", "shape": "(4, 5)"}, declared)
    assert values == {"steps": 4, "name": "7", "shape": (4, 5)}
    assert repr(declared["steps"]) == "DeclaredParameter(steps: None = 10)"
