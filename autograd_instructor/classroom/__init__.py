"""The instructor's side of a hub: the student release, the learners' home folders, collecting and watching.

Torch-free: it reads files the learners saved and never runs their code.
"""

from autograd_instructor.classroom.homes import CourseFolder, LearnerHome, find_homes
from autograd_instructor.classroom.release import make_release

__all__ = ["CourseFolder", "LearnerHome", "find_homes", "make_release"]
