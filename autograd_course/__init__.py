"""The `autograd-course` command line: learners, instructors and maintainers."""

__all__ = ["COURSE_MAP", "repo_root"]

from autograd_course.course import COURSE_MAP, repo_root
