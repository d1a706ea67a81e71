"""The grader's option choices, torch-free so the CLI can offer them without importing the grader."""

POLICIES = ("flag", "zero")  # --solution-viewed: keep the points and flag the part, or give it 0

ASSIGNMENT = "Autograd challenge"  # canvas.csv's and moodle.csv's grade column, unless --assignment

__all__ = ["ASSIGNMENT", "POLICIES"]
