"""The challenge's two modes, stamped in each notebook's metadata by whoever made the notebook.

- practice (self-paced; every notebook `autograd-course start` or the repository gives): checks say
  correct or incorrect at once, hints and solutions are there, every call is recorded.
- graded (what `autograd-course release --graded` gives a class): hints and format checks only; no
  solution, no verdict on correctness in the notebook, and no answer in the learner's install. The
  verdict comes from `autograd-course grade`.
"""

from __future__ import annotations

from autograd_course.protocol import META_KEY

__all__ = ["GRADED", "MODES", "PRACTICE", "mode_of"]

PRACTICE, GRADED = "practice", "graded"
MODES = (PRACTICE, GRADED)


def mode_of(nb) -> str:
    """The mode a notebook says it is in (practice when it says nothing valid)."""
    meta = nb.get("metadata", {}).get(META_KEY, {})
    mode = meta.get("mode") if isinstance(meta, dict) else None
    return mode if mode in MODES else PRACTICE
