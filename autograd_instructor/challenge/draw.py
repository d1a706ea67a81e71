"""The drawing policy: which variant (bug and code shape) each learner gets in each exercise.

A variant is drawn deterministically from sha256(learner + exercise id), so the learner's kernel and
the instructor's grader agree on it without sharing anything but the learner's id. Learner None is
the fixed default variant of the committed solutions/ and exercises/.
"""

from __future__ import annotations

from autograd_course.exercises import EXERCISES, exercise
from autograd_instructor.challenge.catalogue import drawable_bugs
from autograd_instructor.challenge.variants import Variant, digest, shape_number

__all__ = ["variant_for"]


def _mystery_bug(learner: str, exercise_id: str) -> str:
    """A bug from the whole catalogue, distinct from the learner's earlier mystery rounds."""
    taken: set[str] = set()
    drawable = drawable_bugs()
    for other in sorted(e for e, x in EXERCISES.items() if x.mystery):
        pool = [b for b in drawable if b not in taken]
        pick = min(pool, key=lambda b, other=other: digest(learner, other, b))
        if other == exercise_id:
            return pick
        taken.add(pick)
    raise KeyError(f"{exercise_id!r} is not a mystery round")


def variant_for(learner: str | None, exercise_id: str) -> Variant:
    """The variant of one exercise for one learner (None: the committed default variant)."""
    ex = exercise(exercise_id)
    if learner is None:
        return Variant(ex.bug)
    if not isinstance(learner, str) or not learner.strip():
        raise ValueError(f"expected a learner id (a non-empty string) or None, got {learner!r}")
    learner = learner.strip()
    bug = _mystery_bug(learner, exercise_id) if ex.mystery else ex.bug
    return Variant(bug, shape_number(digest(learner, exercise_id, "shape")))
