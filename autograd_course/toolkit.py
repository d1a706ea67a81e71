"""The course's toolkit is the top-level package `helpers`, installed beside `autograd_course`.

A learner's own `helpers.py` (or `helpers/` folder) beside a lesson comes first on the import
path, and an unrelated distribution named `helpers` could be found instead: `require_toolkit`
notices either before a lesson imports anything from it, and says which file to rename.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

__all__ = ["ToolkitShadowedError", "expected_toolkit", "require_toolkit"]


class ToolkitShadowedError(ImportError):
    """`import helpers` finds something other than the course's toolkit."""


def expected_toolkit() -> Path:
    """Where the course's `helpers/__init__.py` lives: beside this package."""
    return Path(__file__).resolve().parent.parent / "helpers" / "__init__.py"


def require_toolkit() -> None:
    """Raise ToolkitShadowedError, naming the file found, unless `helpers` is the course's toolkit.

    Finds `helpers` without importing it (no torch, no code of a stray helpers.py runs).
    """
    expected = expected_toolkit()
    module = sys.modules.get("helpers")
    if module is not None:
        found = getattr(module, "__file__", None)
    else:
        spec = importlib.util.find_spec("helpers")
        if spec is None:
            raise ToolkitShadowedError(f"cannot find the course toolkit `helpers` (expected {expected})")
        found = spec.origin if spec.has_location else None
    if found is None or Path(found).resolve() != expected:
        raise ToolkitShadowedError(
            f"`import helpers` finds {found or 'a namespace package'}, not the course toolkit at {expected}. "
            "A file or folder named helpers beside your notebook (or another package named helpers) hides "
            "it: rename yours (for example to my_helpers.py) and restart the kernel."
        )
