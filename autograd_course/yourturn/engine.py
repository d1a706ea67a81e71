"""The your-turn engine: activities declared as data, checked against the learner's namespace.

A lesson declares its activities in `autograd_course/yourturn/lesson_NN.py` as `ACTIVITIES`. In the
notebook, `tasks = your_turn("NN", globals())` binds the lesson's namespace; `tasks.q1.check()` shows
exactly one verdict and never raises, so Run All reaches the end with the unsolved stubs.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograd_course.checks import ACTIVITY_MIME, Outcome, ProblemView, Verdict, verdict_data

__all__ = [
    "MIME",
    "Activity",
    "Task",
    "Tasks",
    "activities",
    "correct",
    "incorrect",
    "lessons_with_activities",
    "verdict_of",
    "your_turn",
]

MIME = ACTIVITY_MIME  # stored with every verdict so tests read the outcome without parsing prose


def correct(message: str = "") -> tuple[Outcome, str]:
    """What a check function returns when the answer is right."""
    return Outcome.CORRECT, message


def incorrect(message: str) -> tuple[Outcome, str]:
    """What a check function returns when the answer is wrong; the message names what it saw."""
    return Outcome.INCORRECT, message


def _isolated(check: Callable[..., tuple[Outcome, str]], *values: Any) -> tuple[Outcome, str]:
    """Run a check with the learner's random state and grad mode put back afterwards, whatever it does."""
    import torch

    with torch.random.fork_rng(devices=[]), torch.set_grad_enabled(torch.is_grad_enabled()):
        return check(*values)


@dataclass(frozen=True)
class Activity:
    """One your-turn task: what to do, the names to set, a check over their values, hints, a solution.

    `context` names lesson values the check reads after the learner's (the model a loss must come from);
    the learner does not set them, so they never make an activity "not attempted".
    """

    id: str
    task: str
    names: tuple[str, ...]
    check: Callable[..., tuple[Outcome, str]]
    hints: tuple[str, ...]
    solution: str
    context: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not re.fullmatch(r"\d\d\.\d+", self.id):
            raise ValueError(f"expected an activity id like '00.1', got {self.id!r}")
        if not self.names or not all(isinstance(n, str) and n.isidentifier() for n in self.names):
            raise ValueError(f"{self.id}: expected names to be Python identifiers, got {self.names!r}")
        if not all(isinstance(n, str) and n.isidentifier() for n in self.context):
            raise ValueError(f"{self.id}: expected context to be Python identifiers, got {self.context!r}")
        if not 1 <= len(self.hints) <= 3:
            raise ValueError(f"{self.id}: expected 1 to 3 hints, got {len(self.hints)}")
        if not self.solution.strip():
            raise ValueError(f"{self.id}: the solution code is empty")

    def judge(self, namespace: Mapping[str, Any]) -> Verdict:
        """The verdict for the values the namespace holds; never raises."""
        unset = [n for n in self.names if namespace.get(n, ...) is ...]
        if unset:
            names = ", ".join(f"`{n}`" for n in unset)
            return Verdict(
                self.id, None, Outcome.NOT_ATTEMPTED, f"set {names} in the cell above, then run this cell"
            )
        missing = [n for n in self.context if n not in namespace]
        if missing:
            names = ", ".join(f"`{n}`" for n in missing)
            return Verdict(
                self.id, None, Outcome.INCORRECT, f"the lesson's {names} is gone: run the cells above again"
            )
        try:
            outcome, message = _isolated(self.check, *(namespace[n] for n in (*self.names, *self.context)))
        except Exception as exc:  # the learner's value broke the check: say what it was
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            outcome, message = Outcome.INCORRECT, f"checking your answer raised {type(exc).__name__}: {first}"
        return Verdict(self.id, None, outcome, message)

    def __repr__(self) -> str:
        return f"Activity({self.id}: {self.task!r}, names={self.names})"


class Task(ProblemView):
    """One activity bound to a notebook's namespace: check(), hint(level), solution() (the one view).

    Lesson checks are practice: hint and solution calls leave a usage record, check calls do not.
    """

    recorded_kinds = ("hint", "solution")

    def __init__(self, activity: Activity, namespace: Mapping[str, Any]) -> None:
        super().__init__()
        self.activity, self._namespace = activity, namespace
        self.exercise_id = activity.id

    def verdict(self) -> Verdict:
        """The verdict as a value (check() shows it)."""
        return self.activity.judge(self._namespace)

    def hints(self) -> tuple[str, ...]:
        """The activity's hints."""
        return self.activity.hints

    def solution_text(self) -> str:
        """The activity's solution code."""
        return self.activity.solution

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
    return sorted(
        m.name.removeprefix("lesson_")
        for m in pkgutil.iter_modules([str(Path(__file__).parent)])
        if re.fullmatch(r"lesson_\d\d", m.name)
    )


def your_turn(lesson: str, namespace: Mapping[str, Any]) -> Tasks:
    """Bind lesson `lesson`'s activities to `namespace` (pass `globals()`)."""
    if not isinstance(namespace, Mapping):
        raise TypeError(f"expected the notebook's globals() as namespace, got {type(namespace).__name__}")
    return Tasks(lesson, namespace)


def verdict_of(output: Mapping[str, Any]) -> dict[str, str] | None:
    """The {"id", "outcome"} a stored activity check output carries, or None."""
    data = verdict_data(dict(output))
    return data if data is not None and "id" in data else None
