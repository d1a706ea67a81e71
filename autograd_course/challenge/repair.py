"""Part 2's first question: is the fix this notebook's own code, repaired?

The learner's fixed function must keep every line that the reference fix keeps from the broken
function (its code shape), the settings (keyword arguments such as `betas=(0.9, 0.99)`) of the line
it repairs, and must not be the broken function unchanged. Lines are
compared as `ast.unparse` prints them, so comments, spacing and quoting do not matter.
"""

from __future__ import annotations

import ast
import difflib
import inspect
import textwrap
from collections.abc import Callable

__all__ = ["function_lines", "repair_problem", "source_of"]


def source_of(function: Callable) -> str | None:
    """The source of a function the learner defined (None when Python cannot find it)."""
    try:
        return textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):
        return None


def function_lines(source: str, name: str | None = None) -> list[str] | None:
    """The normalized lines of the first function in source, renamed to name; None if there is none."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    func = next((n for n in tree.body if isinstance(n, ast.FunctionDef)), None)
    if func is None:
        return None
    if name is not None:
        func.name = name
    body = func.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        func.body = body[1:] or [ast.Pass()]  # a docstring is not code
    return [line.strip() for line in ast.unparse(func).splitlines() if line.strip()]


def _kept(broken: list[str], fixed: list[str]) -> list[str]:
    """The lines of broken that the reference fix keeps, in order."""
    matcher = difflib.SequenceMatcher(a=broken, b=fixed, autojunk=False)
    blocks = matcher.get_matching_blocks()
    return [line for block in blocks for line in broken[block.a : block.a + block.size]]


def _missing(kept: list[str], learner: list[str]) -> list[str]:
    """The kept lines the learner's function lacks (kept must be a subsequence of learner)."""
    missing, position = [], 0
    for line in kept:
        try:
            position = learner.index(line, position) + 1
        except ValueError:
            missing.append(line)
    return missing


def _settings(lines: list[str]) -> set[str]:
    """The keyword arguments (`lr=0.03`, `betas=(0.9, 0.99)`) of every call in lines, as ast prints them."""
    found = set()
    for line in lines:
        try:
            tree = ast.parse(line)
        except SyntaxError:  # a line that opens a block (`for ...:`) holds no setting the check keeps
            continue
        found |= {
            ast.unparse(k) for n in ast.walk(tree) if isinstance(n, ast.Call) for k in n.keywords if k.arg
        }
    return found


def _changed_settings(broken: list[str], reference: list[str]) -> list[str]:
    """Settings on the lines the reference fix changes that it keeps: the repaired line must keep them too."""
    kept = set(_kept(broken, reference))
    changed_broken = [line for line in broken if line not in kept]
    changed_reference = [line for line in reference if line not in kept]
    return sorted(_settings(changed_broken) & _settings(changed_reference))


def repair_problem(learner_source: str | None, answer: str, broken: str, reference: str) -> str | None:
    """Why the learner's function is not the broken one repaired (None when it is).

    `answer` is the learner's name (fixed_step), `broken`/`reference` the sources of the broken
    function and of the reference fix in this notebook's variant.
    """
    target = function_lines(broken)[0].split("(", 1)[0].removeprefix("def ")  # type: ignore[index]
    if learner_source is None:
        return f"the source of your {answer} could not be read: define it with `def {answer}(...)` in a cell"
    learner = function_lines(learner_source, target)
    if learner is None:
        return f"your {answer} is not a function definition the check can read"
    broken_lines = function_lines(broken)
    if learner == broken_lines:
        return f"your {answer} is {target} unchanged: change the one thing that is broken"
    reference_lines = function_lines(reference)
    missing = _missing(_kept(broken_lines, reference_lines), learner)  # type: ignore[arg-type]
    missing += [s for s in _changed_settings(broken_lines, reference_lines) if s not in _settings(learner)]  # type: ignore[arg-type]
    if missing:
        return (
            f"your {answer} is not this notebook's {target} repaired: it lacks `{missing[0]}`"
            f"{f' and {len(missing) - 1} more line(s)' if len(missing) > 1 else ''}. Keep your code's "
            "shape and settings and change only the broken line(s)"
        )
    return None
