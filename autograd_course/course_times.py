"""How long a notebook takes a learner, estimated from the notebook itself by one written method.

    minutes = prose words / 130 + code lines / 8 + activity minutes by kind + 10 per challenge part,
    rounded up to a multiple of 5.

Prose words are the words of the Markdown cells without fenced blocks (code and Mermaid diagrams) and
without the lesson's own stated time. Code lines are the non-blank lines of the code cells a learner reads,
without the `setup` and `parameters` cells. A your-turn activity counts by what its solution asks of the
learner (`activity_kind`): a prediction (the answer is a value) 5 minutes, changing given code or writing a
few lines 10, writing a function or class from nothing 15. A challenge part is an exercise's answer cell
(proving a stage, or writing a fix on code not seen before). CONTRIBUTING.md states the method; the README
course map, each lesson's Goal section and `autograd-course map` show its result. No torch import.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograd_course.protocol import META_KEY

__all__ = [
    "ACTIVITY_MINUTES",
    "CODE_LINES_PER_MINUTE",
    "PART_MINUTES",
    "STATED_TIME",
    "WORDS_PER_MINUTE",
    "Estimate",
    "activity_kind",
    "code_lines",
    "declared_solutions",
    "estimate",
    "prose_words",
]

WORDS_PER_MINUTE = 130  # dense technical prose, read to understand
CODE_LINES_PER_MINUTE = 8  # code read, run and its output compared
ACTIVITY_MINUTES = {"predict": 5, "fix": 10, "write": 15}  # one your-turn activity, by kind
PART_MINUTES = 10  # one part of a challenge exercise
ROUND_TO = 5
SKIPPED_TAGS = {"setup", "parameters"}
FENCE = re.compile(r"^```.*?^```[^\n]*$", re.S | re.M)
# The line a lesson states its own time in (autograd_course.stated_times writes it): not part of the reading.
STATED_TIME = re.compile(r"^\*\*Time:\*\* about (\d+) minutes\b.*$", re.M)
YOURTURN = Path(__file__).resolve().parent / "yourturn"  # where the activities are declared
VALUE_CALLS = {"float", "int", "set", "frozenset", "tuple", "list"}


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def prose_words(cells: list[dict[str, Any]]) -> int:
    """Words in the Markdown cells, fenced blocks (code, diagrams) and the stated time left out."""
    markdown = (_source(c) for c in cells if c.get("cell_type") == "markdown")
    return sum(len(STATED_TIME.sub("", FENCE.sub("", text)).split()) for text in markdown)


def code_lines(cells: list[dict[str, Any]]) -> int:
    """Non-blank lines of the code cells a learner reads (not the setup or parameters cell)."""
    return sum(
        sum(1 for line in _source(c).splitlines() if line.strip())
        for c in cells
        if c.get("cell_type") == "code" and not SKIPPED_TAGS & set(c.get("metadata", {}).get("tags", []))
    )


def _is_value(node: ast.AST) -> bool:
    """A literal, a name (Stage.OK), or containers and float("inf") built from them: an answer, not code."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(_is_value(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp):
        return _is_value(node.operand)
    if isinstance(node, ast.Call):
        return (
            isinstance(node.func, ast.Name)
            and node.func.id in VALUE_CALLS
            and not node.keywords
            and all(_is_value(a) for a in node.args)
        )
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _defines(source: str) -> bool:
    return any(
        isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))
        for n in ast.walk(ast.parse(source))
    )


def activity_kind(stub: str, solution: str) -> str:
    """What an activity asks, from its answer cell's stub and its solution's code.

    "predict" when the solution only assigns values; "write" when it defines a function or class the stub does
    not hold; "fix" otherwise (lines of code, or given code to change).
    """
    body = ast.parse(solution).body
    if all(isinstance(s, ast.Assign) and _is_value(s.value) for s in body):
        return "predict"
    return "write" if _defines(solution) and not _defines(stub) else "fix"


def declared_solutions(lesson: str, folder: Path = YOURTURN) -> dict[str, str]:
    """Activity id -> solution code, read from autograd_course/yourturn/lesson_NN.py ({} if none).

    The declarations are read as source, not imported: the checks import torch, and `autograd-course map`
    must start without it. Each `Activity(id=..., solution=...)` there spells both as string literals.
    """
    path = Path(folder) / f"lesson_{lesson}.py"
    if not path.is_file():
        return {}
    found = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Activity":
            given = {k.arg: k.value for k in node.keywords}
            try:
                found[ast.literal_eval(given["id"])] = ast.literal_eval(given["solution"])
            except (KeyError, ValueError) as error:
                raise ValueError(
                    f"{path.name}: an Activity without a literal id and solution ({error})"
                ) from None
    return found


@dataclass(frozen=True)
class Estimate:
    """What a notebook asks of a learner, and the minutes the method gives for it."""

    name: str
    words: int
    code_lines: int
    activities: tuple[str, ...]  # the kind of each your-turn activity, in order
    parts: int

    @property
    def minutes(self) -> int:
        raw = (
            self.words / WORDS_PER_MINUTE
            + self.code_lines / CODE_LINES_PER_MINUTE
            + sum(ACTIVITY_MINUTES[kind] for kind in self.activities)
            + self.parts * PART_MINUTES
        )
        return ROUND_TO * math.ceil(raw / ROUND_TO)

    def __repr__(self) -> str:
        kinds = ", ".join(self.activities) or "none"
        return (
            f"Estimate({self.name}: {self.words} words, {self.code_lines} code lines, {len(self.activities)}"
            f" activities ({kinds}), {self.parts} challenge parts -> {self.minutes} min)"
        )


def _answers(cells: list[dict[str, Any]], key: str) -> list[tuple[dict[str, Any], str]]:
    """(cell, its id under key) for every answer cell of a your-turn activity ("yourturn") or exercise."""
    metas = ((c, c.get("metadata", {}).get(META_KEY, {})) for c in cells)
    return [(c, str(m[key])) for c, m in metas if m.get("role") == "answer" and key in m]


def _kinds(cells: list[dict[str, Any]], solutions: Mapping[str, str] | None) -> tuple[str, ...]:
    answers = _answers(cells, "yourturn")
    if solutions is None:
        solutions = {
            k: v
            for lesson in {a.split(".")[0] for _, a in answers}
            for k, v in declared_solutions(lesson).items()
        }
    missing = [a for _, a in answers if a not in solutions]
    if missing:
        raise ValueError(f"activities {', '.join(missing)} have an answer cell but no declared solution")
    return tuple(activity_kind(_source(cell), solutions[activity]) for cell, activity in answers)


def estimate(notebook: Path, solutions: Mapping[str, str] | None = None) -> Estimate:
    """The estimate for one notebook file; solutions (activity id -> code) default to the declared ones."""
    cells = json.loads(Path(notebook).read_text(encoding="utf-8")).get("cells", [])
    parts = len(_answers(cells, "exercise"))
    return Estimate(
        Path(notebook).name, prose_words(cells), code_lines(cells), _kinds(cells, solutions), parts
    )
