"""The TinyNet bug challenge: bug catalogue, variants and their draw, evidence contract, checks, generator.

Pure verdict functions for the grader: `part1_verdict(exercise_id, variant_or_learner, stage,
summary, seed=0)` and `part2_verdict(exercise_id, variant_or_learner, trace, seed=0)`.
"""

from autograd_course.exercises import EXERCISES, Exercise
from autograd_course.learner import read_learner, write_learner
from autograd_instructor.challenge.catalogue import BUGS, Bug
from autograd_instructor.challenge.draw import variant_for
from autograd_instructor.challenge.exercise import Challenge, Part, challenge
from autograd_instructor.challenge.parts import PARTS, PartSpec, part1_verdict, part2_verdict
from autograd_instructor.challenge.variants import Variant
from autograd_instructor.challenge.verdict import NotAttempted, NotAttemptedError, Outcome, Verdict

__all__ = [
    "BUGS",
    "EXERCISES",
    "PARTS",
    "Bug",
    "Challenge",
    "Exercise",
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
