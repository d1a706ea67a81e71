"""The learner's part of the course: the `autograd-course` command line, the lessons' support, the
graded notebooks' checks and the harnesses their answers run in. The instructor's part
(autograd_instructor) builds on it; nothing here imports it (tests/test_two_parts.py)."""

__all__ = ["COURSE_MAP", "__version__", "repo_root"]

__version__ = "0.1.0"

from autograd_course.course import COURSE_MAP, repo_root
