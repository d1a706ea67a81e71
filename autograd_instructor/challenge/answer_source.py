"""A learner's answers as source: read from the notebook's answer cells, made plain Python, screened.

The grader never trusts what the learner's kernel computed. It reads the source of each part's
answer cell (cells whose metadata says role "answer") and runs that in a process of its own on
inputs the learner never saw (hidden.py, fixrun.py). IPython syntax becomes plain Python first:
cell and line magics that only time, profile or capture (`%%time`, `%timeit x`, `%%capture`) run
their code; other magics and shell lines (`%matplotlib`, `!pip`) do nothing. Pruning removes code
that can never run (`if False:` blocks, `while False:` loops, statements after a `return`, `raise`,
`break` or `continue`). Screening names code that reaches for the grader's tools instead of the
learner's own (assignments into modules, setattr, exec/eval/compile, imports of importlib, builtins,
sys or ctypes): a warning for the instructor, never a verdict, because each part's verdict is computed
from what its run did, checked against the grader's own run. The earlier ordinary cells the answer
needs (a model built before, a helper, an import) are found (answer_cells.py) and sent with it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from IPython.core.inputtransformer2 import TransformerManager

import helpers
from autograd_course.answer_cells import earlier_cells, plain_python, python_of
from autograd_course.harness_core import GIVEN
from autograd_course.parsing import parse

__all__ = ["AnswerSource", "answer_source", "plain_python", "prune", "screen"]

_MODULE_ROOTS = {
    "torch",
    "F",
    "nn",
    "helpers",
    "autograd_course",
    "autograd_instructor",
    "np",
    "numpy",
    "sys",
    "builtins",
    "os",
}
_CALLS = {"exec", "eval", "compile", "setattr", "delattr", "__import__"}
_IMPORTS = {
    "importlib",
    "builtins",
    "sys",
    "ctypes",
    "gc",
    "inspect",
    "autograd_course",
    "autograd_instructor",
}
# Ways around the names an answer is given: the interpreter's own tables, reached by attribute or name.
_BACKDOORS = {"sys", "__globals__", "__builtins__", "__subclasses__", "__code__", "__loader__", "__spec__"}


@dataclass
class AnswerSource:
    """One part's answer as the grader runs it: the pruned source, what pruning dropped, what it flags."""

    part: int
    source: str  # pruned, runnable Python ('' when the cell is missing or empty)
    dropped: list[str] = field(default_factory=list)  # what pruning removed, for the instructor
    flags: list[str] = field(default_factory=list)  # why the answer may tamper with the grader
    error: str = ""  # why the cell cannot run at all (a syntax error, naming its cell and line)
    prelude: list[tuple[int, str]] = field(default_factory=list)  # earlier cells it needs: (number, code)

    def judged(self) -> str:
        """The code its run runs: the earlier cells it needs, then the answer (what copies compare)."""
        return "\n".join([*(code for _, code in self.prelude), self.source])

    def __repr__(self) -> str:
        cells = f", after cells {[n for n, _ in self.prelude]}" if self.prelude else ""
        lines = len(self.source.splitlines())
        return f"AnswerSource(part {self.part}, {lines} lines{cells}, flags={self.flags})"


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


def prune(source: str, part: int) -> tuple[str, list[str]]:
    """(the code of source that can run, what was dropped)."""
    tree = parse(source)
    pruner = _Pruner()
    tree.body = pruner._block(tree.body)
    return ast.unparse(ast.fix_missing_locations(tree)), pruner.dropped


def _root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def screen(source: str) -> list[str]:
    """Why the code may change the grader's own tools (torch, the toolkit, Python itself); [] if nothing."""
    flags: list[str] = []
    for node in ast.walk(parse(source)):
        targets = []
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute | ast.Subscript) and _root(target) in _MODULE_ROOTS:
                flags.append(f"line {node.lineno}: assigns into {ast.unparse(target)}")
        if isinstance(node, ast.Attribute) and node.attr in _BACKDOORS:
            flags.append(f"line {node.lineno}: reaches {ast.unparse(node)}")
        if isinstance(node, ast.Name) and node.id in _BACKDOORS:
            flags.append(f"line {node.lineno}: reaches {node.id}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _CALLS:
            flags.append(f"line {node.lineno}: calls {node.func.id}()")
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            for name in names:
                if name.split(".")[0] in _IMPORTS:
                    flags.append(f"line {node.lineno}: imports {name}")
    return flags


def _earlier(earlier: list[tuple[int, str]], answer: str) -> tuple[list[tuple[int, str]], list[str]]:
    """The earlier cells the answer needs, as Python (cells that do not parse are never run), and
    what the screen says of them, each naming its cell."""
    cells = []
    for number, source in earlier:
        try:
            cells.append((number, python_of(source)))
        except SyntaxError:
            continue
    needed = earlier_cells(cells, answer, GIVEN | set(helpers.__all__))
    return needed, [f"cell {n}, {flag}" for n, python in needed for flag in screen(python)]


def answer_source(
    cell_source: str | None, part: int, cell: int | None = None, earlier: list[tuple[int, str]] | None = None
) -> AnswerSource:
    """The answer of one part from its cell's source (IPython syntax allowed): pruned and screened.
    cell: its 1-based number in the notebook, named by a syntax error; earlier: (number, source) of
    the ordinary cells before it, of which the run gets those the answer needs (answer_cells.py)."""
    if not cell_source or not cell_source.strip():
        return AnswerSource(part, "")
    try:
        python = TransformerManager().transform_cell(plain_python(cell_source))
        pruned, dropped = prune(python, part)
    except SyntaxError as exc:
        where = f"cell {cell}, line {exc.lineno}" if cell else f"line {exc.lineno}"
        return AnswerSource(part, "", error=f"syntax error in the answer cell ({where}): {exc.msg}")
    prelude, flags = _earlier(earlier or [], pruned)
    return AnswerSource(part, pruned, dropped, [*flags, *screen(pruned)], prelude=prelude)
