"""A learner's answers as source: read from the notebook's answer cells, pruned to what can run, screened.

The grader never trusts what the learner's kernel computed. It reads the source of each part's
answer cell (cells whose metadata says role "answer"), prunes it to the code that can run, and runs
that in a process of its own on inputs the learner never saw (hidden.py). Pruning removes what a
pasted reference could hide behind: `if False:` blocks, `while False:` loops, statements after a
`return`, `raise`, `break` or `continue`; for part 2 also every top-level statement that is not an
import or a definition the fixed functions use. Screening flags code that could change the grader's
tools instead of the learner's own: assignments into modules (torch, F, helpers, ...), setattr,
exec/eval/compile, imports of importlib, builtins, sys or ctypes.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from IPython.core.inputtransformer2 import TransformerManager

__all__ = ["AnswerSource", "answer_source", "prune", "screen"]

FIXED_NAMES = ("fixed_setup", "fixed_compute_loss", "fixed_step")
_MODULE_ROOTS = {"torch", "F", "nn", "helpers", "autograd_course", "np", "numpy", "sys", "builtins", "os"}
_CALLS = {"exec", "eval", "compile", "setattr", "delattr", "__import__", "globals", "vars"}
_IMPORTS = {"importlib", "builtins", "sys", "ctypes", "gc", "inspect", "autograd_course"}


@dataclass
class AnswerSource:
    """One part's answer as the grader runs it: the pruned source, what pruning dropped, what it flags."""

    part: int
    source: str  # pruned, runnable Python ('' when the cell is missing or empty)
    dropped: list[str] = field(default_factory=list)  # what pruning removed, for the instructor
    flags: list[str] = field(default_factory=list)  # why the answer may tamper with the grader

    def __repr__(self) -> str:
        return f"AnswerSource(part {self.part}, {len(self.source.splitlines())} lines, flags={self.flags})"


def _constant_false(test: ast.expr) -> bool:
    try:
        return not ast.literal_eval(test)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


class _Pruner(ast.NodeTransformer):
    """Removes code that can never run."""

    def __init__(self) -> None:
        self.dropped: list[str] = []

    def _block(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in body:
            stmt = self.visit(stmt)
            if stmt is None:
                continue
            out.extend(stmt if isinstance(stmt, list) else [stmt])
            if isinstance(out[-1], ast.Return | ast.Raise | ast.Break | ast.Continue):
                if len(out) < len(body):
                    self.dropped.append(f"line {out[-1].lineno}: code after {type(out[-1]).__name__.lower()}")
                break
        return out

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(node, name, self._block(block))
        for name in ("handlers", "cases"):
            for child in getattr(node, name, []) or []:
                self.visit(child)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.body:
            node.body = [ast.Pass()]
        return node

    def visit_If(self, node: ast.If) -> ast.AST | list[ast.stmt] | None:
        if _constant_false(node.test):
            self.dropped.append(f"line {node.lineno}: a block that never runs (if {ast.unparse(node.test)})")
            return self._block(node.orelse) or None
        return self.generic_visit(node)

    def visit_While(self, node: ast.While) -> ast.AST | list[ast.stmt] | None:
        if _constant_false(node.test):
            self.dropped.append(f"line {node.lineno}: a loop that never runs")
            return self._block(node.orelse) or None
        return self.generic_visit(node)


def _used_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.value.id for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
    }


def _keep_definitions(tree: ast.Module, dropped: list[str]) -> None:
    """Part 2: keep imports and the definitions the fixed functions reach; drop every other statement."""
    defs = {
        s.name: s for s in tree.body if isinstance(s, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef)
    }
    wanted, todo = set(), [n for n in FIXED_NAMES if n in defs]
    while todo:
        name = todo.pop()
        if name in wanted:
            continue
        wanted.add(name)
        todo += [n for n in _used_names(defs[name]) if n in defs and n not in wanted]
    body = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Import | ast.ImportFrom) or getattr(stmt, "name", None) in wanted:
            body.append(stmt)
        else:
            what = getattr(stmt, "name", None) or ast.unparse(stmt).splitlines()[0][:60]
            dropped.append(f"line {stmt.lineno}: not part of the fix ({what})")
    tree.body = body


def prune(source: str, part: int) -> tuple[str, list[str]]:
    """(the code of source that can run, what was dropped); part 2 keeps only the fix's definitions."""
    tree = ast.parse(source)
    pruner = _Pruner()
    tree.body = pruner._block(tree.body)
    if part == 2:
        _keep_definitions(tree, pruner.dropped)
    return ast.unparse(ast.fix_missing_locations(tree)), pruner.dropped


def _root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def screen(source: str) -> list[str]:
    """Why the code may change the grader's own tools (torch, the toolkit, Python itself); [] if nothing."""
    flags: list[str] = []
    for node in ast.walk(ast.parse(source)):
        targets = []
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute | ast.Subscript) and _root(target) in _MODULE_ROOTS:
                flags.append(f"line {node.lineno}: assigns into {ast.unparse(target)}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _CALLS:
            flags.append(f"line {node.lineno}: calls {node.func.id}()")
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            for name in names:
                if name.split(".")[0] in _IMPORTS:
                    flags.append(f"line {node.lineno}: imports {name}")
        if isinstance(node, ast.Global | ast.Nonlocal):
            flags.append(f"line {node.lineno}: rebinds {', '.join(node.names)} outside its function")
    return flags


def answer_source(cell_source: str | None, part: int) -> AnswerSource:
    """The answer of one part from its cell's source (IPython syntax allowed): pruned and screened."""
    if not cell_source or not cell_source.strip():
        return AnswerSource(part, "")
    python = TransformerManager().transform_cell(cell_source)
    pruned, dropped = prune(python, part)
    return AnswerSource(part, pruned, dropped, screen(pruned))
