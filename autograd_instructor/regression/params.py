"""Parameters for a run: `-p NAME VALUE` strings typed against what each notebook declares."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import papermill

__all__ = ["DeclaredParameter", "ParameterError", "declared_parameters", "type_parameters"]

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


class ParameterError(ValueError):
    """A `-p` value that cannot be converted to the type a notebook declares."""


@dataclass(frozen=True)
class DeclaredParameter:
    """One assignment in a notebook's `parameters` cell, as papermill infers it."""

    name: str
    type_name: str
    default: str

    def __repr__(self) -> str:
        return f"DeclaredParameter({self.name}: {self.type_name} = {self.default})"

    @property
    def kind(self) -> str:
        """The type to convert to: the annotation, else the type of a literal default, else 'any'."""
        if self.type_name in ("int", "float", "str", "bool"):
            return self.type_name
        default = _literal(self.default)
        if isinstance(default, bool):
            return "bool"
        if isinstance(default, (int, float, str)):
            return type(default).__name__
        return "any"

    def default_value(self) -> Any:
        """The default as a Python value when it is a literal, else its source text."""
        value = _literal(self.default)
        return self.default if value is _NOT_LITERAL else value


_NOT_LITERAL = object()


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return _NOT_LITERAL


def declared_parameters(notebook: Path) -> dict[str, DeclaredParameter]:
    """The parameters a notebook declares in its `parameters` cell (empty when it has none)."""
    inferred = papermill.inspect_notebook(str(notebook))
    return {
        name: DeclaredParameter(name, str(p["inferred_type_name"]), str(p["default"]))
        for name, p in inferred.items()
    }


def _convert(raw: str, parameter: DeclaredParameter, notebook: str) -> Any:
    kind = parameter.kind
    try:
        if kind == "str":
            return raw
        if kind == "int":
            return int(raw)
        if kind == "float":
            return float(raw)
        if kind == "bool":
            if raw.lower() in _TRUE:
                return True
            if raw.lower() in _FALSE:
                return False
            raise ValueError(raw)
    except ValueError:
        raise ParameterError(
            f"{notebook} declares {parameter.name}: {kind}; got {raw!r}, which is not a {kind}"
        ) from None
    value = _literal(raw)  # no usable type: a Python literal if it is one, else the text
    return raw if value is _NOT_LITERAL else value


def type_parameters(
    raw: dict[str, str], declared: dict[str, DeclaredParameter], notebook: str = "notebook"
) -> tuple[dict[str, Any], list[str]]:
    """Typed values for the parameters the notebook declares, and the names it does not declare."""
    values: dict[str, Any] = {}
    undeclared: list[str] = []
    for name, text in raw.items():
        if name in declared:
            values[name] = _convert(text, declared[name], notebook)
        else:
            undeclared.append(name)
    return values, undeclared
