"""The TinyNet bug challenge: bug catalogue, variants, evidence contract, in-notebook checks, generator.

Pure verdict functions for the grader (C4): `part1_verdict(exercise_id, variant_or_learner, stage,
summary, seed=0)` and `part2_verdict(exercise_id, variant_or_learner, trace, seed=0)`.
"""

from autograd_course.challenge.catalogue import BUGS, EXERCISES, Bug, Exercise
from autograd_course.challenge.exercise import Challenge, Part, challenge
from autograd_course.challenge.parts import PARTS, PartSpec, part1_verdict, part2_verdict
from autograd_course.challenge.variants import Variant, read_learner, variant_for, write_learner
from autograd_course.challenge.verdict import (
    CheckFailed,
    Incorrect,
    NotAttempted,
    NotAttemptedError,
    Outcome,
    Verdict,
)

__all__ = [
    "BUGS",
    "EXERCISES",
    "PARTS",
    "Bug",
    "Challenge",
    "CheckFailed",
    "Exercise",
    "Incorrect",
    "NotAttempted",
    "NotAttemptedError",
    "Outcome",
    "Part",
    "PartSpec",
    "Variant",
    "Verdict",
    "challenge",
    "part1_verdict",
    "part2_verdict",
    "read_learner",
    "variant_for",
    "write_learner",
]
