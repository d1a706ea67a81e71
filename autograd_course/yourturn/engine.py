"""The your-turn engine: activities declared as data, checked against the learner's namespace.

A lesson declares its activities in `autograd_course/yourturn/lesson_NN.py` as `ACTIVITIES`. In the
notebook, `tasks = your_turn("NN", globals())` binds the lesson's namespace; `tasks.q1.check()` shows
exactly one verdict and never raises, so Run All reaches the end with the unsolved stubs.
"""

from __future__ import annotations

import html
import importlib
import json
import pkgutil
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from autograd_course.challenge.verdict import COLOURS, Outcome

__all__ = [
    "MIME",
    "Activity",
    "Result",
    "Task",
    "Tasks",
    "activities",
    "correct",
    "incorrect",
    "lessons_with_activities",
    "verdict_of",
    "your_turn",
]

# Stored with every verdict so tests (and graders) read the outcome without parsing prose.
MIME = "application/vnd.autograd-course.yourturn+json"


@dataclass(frozen=True)
class Result:
    """One check's outcome for one activity, with a sentence for the learner."""

    id: str
    outcome: Outcome
    message: str

    def text(self) -> str:
        """One line of plain text."""
        return f"Your turn {self.id}: {self.outcome.value}. {self.message}".rstrip()

    def __repr__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        return (
            f'<div style="background:{COLOURS[self.outcome]};color:#000;padding:6px 10px;border-radius:4px">'
            f"<b>Your turn {html.escape(self.id)}: {self.outcome.value}.</b> "
            f"{html.escape(self.message)}</div>"
        )

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return {
            "text/plain": self.text(),
            "text/html": self._repr_html_(),
            MIME: {"id": self.id, "outcome": self.outcome.value},
        }


def correct(message: str = "") -> tuple[Outcome, str]:
    """What a check function returns when the answer is right."""
    return Outcome.CORRECT, message


def incorrect(message: str) -> tuple[Outcome, str]:
    """What a check function returns when the answer is wrong; the message names what it saw."""
    return Outcome.INCORRECT, message


@dataclass(frozen=True)
class Activity:
    """One your-turn task: what to do, the names to set, a check over their values, hints, a solution."""

    id: str
    task: str
    names: tuple[str, ...]
    check: Callable[..., tuple[Outcome, str]]
    hints: tuple[str, ...]
    solution: str

    def __post_init__(self) -> None:
        if not re.fullmatch(r"\d\d\.\d+", self.id):
            raise ValueError(f"expected an activity id like '00.1', got {self.id!r}")
        if not self.names or not all(isinstance(n, str) and n.isidentifier() for n in self.names):
            raise ValueError(f"{self.id}: expected names to be Python identifiers, got {self.names!r}")
        if not 1 <= len(self.hints) <= 3:
            raise ValueError(f"{self.id}: expected 1 to 3 hints, got {len(self.hints)}")
        if not self.solution.strip():
            raise ValueError(f"{self.id}: the solution code is empty")

    def judge(self, namespace: Mapping[str, Any]) -> Result:
        """The verdict for the values the namespace holds; never raises."""
        unset = [n for n in self.names if namespace.get(n, ...) is ...]
        if unset:
            names = ", ".join(f"`{n}`" for n in unset)
            return Result(
                self.id, Outcome.NOT_ATTEMPTED, f"set {names} in the cell above, then run this cell"
            )
        try:
            outcome, message = self.check(*(namespace[n] for n in self.names))
        except Exception as exc:  # the learner's value broke the check: say what it was
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            outcome, message = Outcome.INCORRECT, f"checking your answer raised {type(exc).__name__}: {first}"
        return Result(self.id, outcome, message)

    def __repr__(self) -> str:
        return f"Activity({self.id}: {self.task!r}, names={self.names})"


class _Note:
    """A hint or solution shown as text (plain or HTML)."""

    def __init__(self, title: str, body: str, code: bool = False) -> None:
        self.title, self.body, self.code = title, body, code

    def text(self) -> str:
        return f"{self.title}\n{self.body}" if self.code else f"{self.title} {self.body}"

    def __repr__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        body = html.escape(self.body)
        body = f"<pre>{body}</pre>" if self.code else body
        return (
            '<div style="background:#fff8e1;color:#000;padding:6px 10px;border-radius:4px">'
            f"<b>{html.escape(self.title)}</b> {body}</div>"
        )


def _in_jupyter() -> bool:
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython else None
    return shell is not None and hasattr(shell, "kernel")


def _show(obj: Result | _Note) -> None:
    """One output: a rich display in Jupyter, one printed text elsewhere."""
    if _in_jupyter():
        from IPython.display import display

        display(obj)
    else:
        print(obj.text())


class Task:
    """One activity bound to a notebook's namespace: check(), hint(level), solution()."""

    def __init__(self, activity: Activity, namespace: Mapping[str, Any]) -> None:
        self.activity, self._namespace = activity, namespace

    def result(self) -> Result:
        """The verdict as a value (check() shows it)."""
        return self.activity.judge(self._namespace)

    def check(self) -> None:
        """Show one verdict: correct, incorrect (naming what it saw) or not attempted."""
        _show(self.result())

    def hint(self, level: int = 1) -> None:
        """Show hint `level` (1-based); a level out of range says how many hints exist."""
        hints = self.activity.hints
        count = f"{len(hints)} hint{'s' if len(hints) != 1 else ''}"
        if isinstance(level, int) and not isinstance(level, bool) and 1 <= level <= len(hints):
            _show(_Note(f"Hint {level} of {len(hints)}:", hints[level - 1]))
        else:
            options = " or ".join(f"hint({i})" for i in range(1, len(hints) + 1))
            _show(_Note(f"Your turn {self.activity.id} has {count}:", f"ask for {options} (got {level!r})."))

    def solution(self) -> None:
        """Show the solution code."""
        _show(_Note(f"Solution {self.activity.id}:", self.activity.solution.strip(), code=True))

    def __repr__(self) -> str:
        return f"Task({self.activity.id}: {self.activity.task})"


class Tasks:
    """A lesson's activities bound to its namespace, as attributes q1, q2, ..."""

    def __init__(self, lesson: str, namespace: Mapping[str, Any]) -> None:
        self.lesson = lesson
        self._tasks = {f"q{a.id.split('.')[1]}": Task(a, namespace) for a in activities(lesson)}

    def __getattr__(self, name: str) -> Task:
        tasks = self.__dict__.get("_tasks", {})
        if name in tasks:
            return tasks[name]
        raise AttributeError(f"lesson {self.lesson} has activities {', '.join(tasks)}; there is no {name!r}")

    def __dir__(self) -> list[str]:
        return [*super().__dir__(), *self._tasks]

    def __repr__(self) -> str:
        return f"Tasks({self.lesson}: {', '.join(self._tasks)})"


def activities(lesson: str) -> tuple[Activity, ...]:
    """The activities lesson `lesson` ("00") declares, in order."""
    if not (isinstance(lesson, str) and re.fullmatch(r"\d\d", lesson)):
        raise ValueError(f"expected a two-digit lesson number such as '00', got {lesson!r}")
    try:
        module = importlib.import_module(f"autograd_course.yourturn.lesson_{lesson}")
    except ModuleNotFoundError:
        raise ValueError(f"lesson {lesson} declares no your-turn activities") from None
    declared = tuple(module.ACTIVITIES)
    ids = [a.id for a in declared]
    expected = [f"{lesson}.{i}" for i in range(1, len(declared) + 1)]
    if ids != expected:
        raise ValueError(f"lesson {lesson}: activity ids {ids}, expected {expected}")
    return declared


def lessons_with_activities() -> list[str]:
    """The lesson numbers that have a declarations module."""
    import autograd_course.yourturn as package

    return sorted(
        m.name.removeprefix("lesson_")
        for m in pkgutil.iter_modules(package.__path__)
        if re.fullmatch(r"lesson_\d\d", m.name)
    )


def your_turn(lesson: str, namespace: Mapping[str, Any]) -> Tasks:
    """Bind lesson `lesson`'s activities to `namespace` (pass `globals()`)."""
    if not isinstance(namespace, Mapping):
        raise TypeError(f"expected the notebook's globals() as namespace, got {type(namespace).__name__}")
    return Tasks(lesson, namespace)


def verdict_of(output: Mapping[str, Any]) -> dict[str, str] | None:
    """The {"id", "outcome"} a stored check output carries, or None."""
    data = output.get("data", {}).get(MIME)
    if isinstance(data, str):
        data = json.loads(data)
    return data if isinstance(data, dict) else None
