"""`parse`: ast.parse behind one lock.

CPython 3.11 builds a tree's Python objects with a recursion counter that threads share, so two
threads parsing at once can raise "SystemError: AST constructor recursion depth mismatch"
(python/cpython#106905). `autograd-course grade` judges learners in threads (--jobs), and each
parses answers: they take turns here.
"""

from __future__ import annotations

import ast
import threading

__all__ = ["parse"]

_ONE_AT_A_TIME = threading.Lock()


def parse(source: str) -> ast.Module:
    """ast.parse(source), one thread at a time."""
    with _ONE_AT_A_TIME:
        return ast.parse(source)
