"""Names that notebooks, the learner's tools and the instructor's tools share: write each one here only.

Torch-free and import-free on purpose: every other module may import this one, and it imports none of them.
"""

from __future__ import annotations

from pathlib import PurePosixPath

__all__ = [
    "ACTIVITY_MIME",
    "LEARNER_ENV",
    "LEARNER_FILE",
    "META_KEY",
    "PROGRESS_FILE",
    "USAGE_MIME",
    "VERDICT_MIME",
]

# The learner id that draws a learner's exercise variants: this variable first, then course.json.
LEARNER_ENV = "AUTOGRAD_COURSE_LEARNER"
LEARNER_FILE = "course.json"

# Notebook and cell metadata key: {"exercise", "part", "role"}, {"yourturn", "role"}, {"learner"}.
META_KEY = "autograd_course"

# A check, hint or solution call leaves this output in the notebook, so `grade` can read what was used.
USAGE_MIME = "application/vnd.autograd-course.usage+json"

# The machine-readable copy of a verdict, stored with its output: challenge parts, and lesson activities.
VERDICT_MIME = "application/vnd.autograd-course.verdict+json"
ACTIVITY_MIME = "application/vnd.autograd-course.yourturn+json"

# Written by `check` inside a workspace, read by `progress`.
PROGRESS_FILE = PurePosixPath(".autograd-course") / "progress.json"
