"""The challenge's exercises as data: id, title, default bug; torch-free, so `progress` can read it.

The bugs themselves (code edits, stages, proofs) live in autograd_instructor/challenge/catalogue.py.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EXERCISES", "Exercise", "exercise"]


@dataclass(frozen=True)
class Exercise:
    """One graded notebook: an id, a title, and the default bug (mystery rounds draw theirs)."""

    id: str
    title: str
    bug: str
    mystery: bool

    def __repr__(self) -> str:
        return f"Exercise({self.id}: {self.title!r})"


EXERCISES: dict[str, Exercise] = {
    ex.id: ex
    for ex in [
        Exercise("A", "The detached output", "A", False),
        Exercise("B", "The frozen layer", "B", False),
        Exercise("C", "The forgotten layer", "C", False),
        Exercise("D", "The missing zero_grad", "D", False),
        Exercise("E", "Division by zero", "E", False),
        Exercise("M1", "Mystery round 1", "G", True),
        Exercise("M2", "Mystery round 2", "I", True),
        Exercise("M3", "Mystery round 3", "H", True),
    ]
}


def exercise(exercise_id: str) -> Exercise:
    """The exercise with this id (A-E, M1-M3); a clear error for anything else."""
    if exercise_id not in EXERCISES:
        raise KeyError(f"no exercise {exercise_id!r}; expected one of {', '.join(EXERCISES)}")
    return EXERCISES[exercise_id]
