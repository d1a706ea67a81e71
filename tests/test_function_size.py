"""Every function of the toolkit and the CLI fits on a screen: at most 60 lines, docstring included."""

from __future__ import annotations

import ast

from test_import_graph import _modules

MAX_LINES = 60


def long_functions(source: str, limit: int = MAX_LINES) -> list[tuple[str, int]]:
    """(name, lines) of every function or method in source longer than limit."""
    return [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > limit
    ]


def test_a_long_function_is_found():
    body = "".join(f"    x{i} = {i}\n" for i in range(61))
    assert long_functions(f"def short():\n    pass\n\n\ndef long():\n{body}") == [("long", 62)]


def test_no_function_is_over_sixty_lines():
    found = [
        f"{path}: {name} ({lines} lines)"
        for path in _modules().values()
        for name, lines in long_functions(path.read_text(encoding="utf-8"))
    ]
    assert not found, "split these functions:\n" + "\n".join(found)
