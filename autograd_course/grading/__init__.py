"""Classroom grading: students and rosters, archives, the sandbox, gradebooks, feedback, shards."""
