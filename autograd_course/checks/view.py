"""The one check view (learntools' ProblemView): check(), hint(level), solution() for every problem.

A lesson activity and a challenge part subclass `ProblemView` and say only what differs: how to
judge the namespace, the hints, the solution text, and which calls leave a usage record.
"""

from __future__ import annotations

from autograd_course.checks.display import show
from autograd_course.checks.usage import recorded
from autograd_course.checks.verdict import Note, Verdict, label_of

__all__ = ["ProblemView", "show"]


class ProblemView:
    """One problem bound to a notebook: check(), hint(level), solution(); usage recorded by decorators."""

    exercise_id: str
    part_number: int | None = None
    recorded_kinds: tuple[str, ...] = ("check", "hint", "solution")

    def __init__(self) -> None:
        self.usage: list[dict] = []
        self.last: Verdict | None = None

    # What each kind of problem supplies.
    def verdict(self) -> Verdict:
        """This problem's verdict for the namespace as it is now (computed, not shown)."""
        raise NotImplementedError

    def hints(self) -> tuple[str, ...]:
        """The hints, gentlest first."""
        raise NotImplementedError

    def solution_text(self) -> str:
        """The solution code."""
        raise NotImplementedError

    def records(self, kind: str) -> bool:
        """Whether a call of this kind leaves a usage record."""
        return kind in self.recorded_kinds

    @property
    def label(self) -> str:
        """What the learner calls this problem."""
        return label_of(self.exercise_id, self.part_number)

    # The view, the same for every problem.
    @recorded("check")
    def check(self) -> tuple[int, Verdict]:
        """Show one verdict: correct, incorrect (saying what it saw) or not attempted; never raises."""
        self.last = self.verdict()
        return 1, self.last

    @recorded("hint")
    def hint(self, level: int = 1) -> tuple[int | None, Note]:
        """Show hint `level` (1 is the gentlest); a level out of range says how many hints exist."""
        hints = self.hints()
        if isinstance(level, int) and not isinstance(level, bool) and 1 <= level <= len(hints):
            return level, Note(f"Hint {level} of {len(hints)}:", hints[level - 1])
        count = f"{len(hints)} hint{'s' if len(hints) != 1 else ''}"
        options = " or ".join(f"hint({i})" for i in range(1, len(hints) + 1))
        return None, Note(f"{self.label} has {count}:", f"ask for {options} (got {level!r}).")

    @recorded("solution")
    def solution(self) -> tuple[int, Note]:
        """Show the solution code (recorded: a grader may count a part whose solution was viewed)."""
        return len(self.hints()) + 1, Note(
            f"{self.label} · solution:", self.solution_text().strip(), code=True
        )
