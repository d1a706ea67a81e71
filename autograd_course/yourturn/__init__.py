"""Your-turn activities inside the lessons: `tasks = your_turn("00", globals())`, then `tasks.q1.check()`."""

__all__ = [
    "Activity",
    "Task",
    "Tasks",
    "activities",
    "correct",
    "incorrect",
    "lessons_with_activities",
    "your_turn",
]

from autograd_course.toolkit import require_toolkit

require_toolkit()  # before a lesson's `from helpers import ...`: a learner's helpers.py would hide it

from autograd_course.yourturn.engine import (  # noqa: E402
    Activity,
    Task,
    Tasks,
    activities,
    correct,
    incorrect,
    lessons_with_activities,
    your_turn,
)
