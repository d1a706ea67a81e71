"""An answer cell as the grader runs it: IPython made plain Python, and the earlier cells it needs.

Used by the grader (challenge/answer_source.py) and by the graded notebook's own part-1 check, so it
imports nothing of the challenge or the grader (a learner's install has neither).

A learner may use, in an answer, a name an earlier ordinary cell defined: a model built before, a
helper function, an import, a constant. `earlier_cells` finds those cells by what the answer's code
reads and never defines (Python's own symbol tables, `symtable`), then what those cells read, and so
on: they run, in notebook order, in the answer's sandboxed run just before it, so the answer is
judged by what it does. Names the run already gives (torch, the broken code, the problem:
harness_core.GIVEN, and the toolkit's, which the caller adds) are never looked for in earlier cells,
and a cell that imports the course (the imports cell, `ex = challenge(...)`) is never sent: the
answer's kernel has no course to import.
"""

from __future__ import annotations

import ast
import re
import symtable

from IPython.core.inputtransformer2 import TransformerManager

from autograd_course.harness_core import GIVEN
from autograd_course.parsing import parse

__all__ = ["GIVEN", "bound_names", "earlier_cells", "free_names", "plain_python", "python_of"]

_RUNS_ITS_CODE = {"time", "timeit", "capture", "prun"}  # magics whose code is the answer's code
_MAGIC = re.compile(r"^(\s*)%(\w+)(.*)$")


def _line(line: str) -> str:
    """One line of a cell as plain Python: a timing magic's statement, other magics and shell: pass."""
    indent = line[: len(line) - len(line.lstrip())]
    if line.lstrip().startswith("!"):
        return f"{indent}pass"
    match = _MAGIC.match(line)
    if match is None:
        return line
    name, rest = match.group(2), match.group(3).strip()
    if name in _RUNS_ITS_CODE and rest and not rest.startswith("-"):
        return f"{indent}{rest}"
    return f"{indent}pass"


def plain_python(cell_source: str) -> str:
    """The cell without IPython syntax: timing cell magics run their body, other cell magics nothing."""
    lines = cell_source.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        name = lines[first].lstrip()[2:].split()[0] if lines[first].strip() != "%%" else ""
        body = lines[first + 1 :] if name in _RUNS_ITS_CODE else []
        lines = [*([""] * (first + 1)), *body]  # keep line numbers as the learner sees them
    return "\n".join(_line(line) for line in lines)


def python_of(cell_source: str) -> str:
    """A cell's source as Python that compiles (SyntaxError when it does not)."""
    python = TransformerManager().transform_cell(plain_python(cell_source))
    compile(python, "<cell>", "exec")
    return python


def _scopes(table: symtable.SymbolTable) -> list[symtable.SymbolTable]:
    found = [table]
    for child in table.get_children():
        found += _scopes(child)
    return found


def bound_names(python: str) -> set[str]:
    """The names a cell's code defines at the top level (assigned, imported, def, class, or global)."""
    top = symtable.symtable(python, "<cell>", "exec")
    names = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    for scope in _scopes(top)[1:]:
        names |= {s.get_name() for s in scope.get_symbols() if s.is_declared_global() and s.is_assigned()}
    return names


def _reads(python: str) -> tuple[set[str], set[str]]:
    """The global names a cell's code reads and does not define: (at its top level, in its functions).
    A name read at the top level is looked up when the cell runs; in a function, when it is called."""
    top = symtable.symtable(python, "<cell>", "exec")
    now = {s.get_name() for s in top.get_symbols() if s.is_referenced()}
    later: set[str] = set()
    for scope in _scopes(top)[1:]:
        later |= {s.get_name() for s in scope.get_symbols() if s.is_global() and s.is_referenced()}
    bound = bound_names(python)
    return now - bound, later - bound


def free_names(python: str) -> set[str]:
    """The names a cell's code reads from the notebook's globals without defining them itself."""
    now, later = _reads(python)
    return now | later


def _imports_the_course(python: str) -> bool:
    """Does the cell import the course (the imports cell: `ex = challenge(...)`)? Its names the run
    gives, or cannot: the kernel that runs an answer has no course, so such a cell is never sent."""
    for node in ast.walk(parse(python)):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        names += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        if any(n.split(".")[0] in ("autograd_course", "autograd_instructor") for n in names):
            return True
    return False


def earlier_cells(cells: list[tuple[int, str]], answer: str, given: set[str]) -> list[tuple[int, str]]:
    """The (cell number, Python) of the earlier cells the answer needs, in notebook order: for each name
    it reads and neither defines nor is given, the last earlier cell defining it, then what that cell
    needs (a name its top level reads: from the cells before it; a name its functions read: from the
    cells before the answer, as a call looks it up then). cells: every earlier cell that may run."""
    bound = [set() if _imports_the_course(python) else bound_names(python) for _, python in cells]
    chosen: set[int] = set()
    pending = [(name, len(cells)) for name in free_names(answer) - given]
    while pending:
        name, before = pending.pop()
        where = next((i for i in reversed(range(before)) if name in bound[i]), None)
        if where is None or where in chosen:
            continue
        chosen.add(where)
        now, later = _reads(cells[where][1])
        pending += [(n, where) for n in now - given] + [(n, len(cells)) for n in later - given]
    return [cells[i] for i in sorted(chosen)]
