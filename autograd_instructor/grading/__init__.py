"""Classroom grading: students and rosters, archives, the sandbox, gradebooks, feedback, shards."""

__all__: list[str] = []
