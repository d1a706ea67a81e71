"""`expect_error`: reproduce an error in a notebook, show its real trimmed traceback, keep the cell green."""

from __future__ import annotations

import re
import sys
import traceback
from pathlib import Path
from types import TracebackType

__all__ = ["ExpectedError", "expect_error", "format_trimmed"]

# Frames in these packages are library internals: only the last of each run of them is shown.
_LIBRARIES = ("torch", "helpers", "autograd_course", "contextlib")


def _library(filename: str) -> str | None:
    """The library a frame's file belongs to, or None for the learner's code (a cell, a script)."""
    parts = Path(filename).parts
    if "site-packages" in parts or "dist-packages" in parts:
        return next((p for p in parts if p in _LIBRARIES), "site-packages")
    for name in _LIBRARIES:
        if name in parts[:-1] or Path(filename).stem == name:
            return name
    return None


def _where(filename: str, lineno: int | None, name: str) -> str:
    """The frame's location line as IPython (for a cell) or Python (for a file) prints it."""
    shell = sys.modules.get("IPython") and sys.modules["IPython"].get_ipython()
    cells = getattr(getattr(shell, "compile", None), "_filename_map", {}) if shell else {}
    if filename in cells:
        return f"  Cell In[{cells[filename]}], line {lineno}"
    parts = Path(filename).parts
    lib = _library(filename)
    if lib and lib in parts:  # no machine-specific prefix: start the path at the package
        filename = "…/" + "/".join(parts[parts.index(lib) :])
    return f'  File "{filename}", line {lineno}, in {name}'


def format_trimmed(exc: BaseException, tb: TracebackType | None = None) -> str:
    """The traceback as Python prints it, trimmed to the learner's frames and each library's last frame."""
    frames = traceback.extract_tb(tb if tb is not None else exc.__traceback__)
    kept = [
        frame
        for i, frame in enumerate(frames)
        if _library(frame.filename) is None
        or i + 1 == len(frames)
        or _library(frames[i + 1].filename) != _library(frame.filename)
    ]
    lines = ["Traceback (most recent call last):"]
    for frame in kept:
        lines.append(_where(frame.filename, frame.lineno, frame.name))
        if frame.line:
            lines.append(f"    {frame.line.strip()}")
    message = str(exc)
    lines.append(f"{type(exc).__name__}: {message}" if message else type(exc).__name__)
    return "\n".join(lines)


class ExpectedError:
    """Context manager that requires its body to raise a matching exception, shows it, then swallows it."""

    def __init__(self, exc_type: type[BaseException], match: str = "", *, quiet: bool = False) -> None:
        if not (isinstance(exc_type, type) and issubclass(exc_type, BaseException)):
            raise TypeError(f"expected an exception class such as RuntimeError, got {exc_type!r}")
        if not isinstance(match, str):
            raise TypeError(f"expected match to be a regular expression string, got {type(match).__name__}")
        try:
            re.compile(match)
        except re.error as err:
            raise ValueError(f"expected match to be a valid regular expression: {match!r} ({err})") from None
        self.exc_type, self.match, self.quiet = exc_type, match, quiet
        self.exception: BaseException | None = None
        self.traceback: str = ""

    def __enter__(self) -> ExpectedError:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        wanted = f"{self.exc_type.__name__} matching {self.match!r}"
        if exc is None:
            raise AssertionError(f"expected {wanted}, but nothing was raised")
        message = str(exc)
        if not isinstance(exc, self.exc_type):
            first = message.splitlines()[0] if message else ""
            raise AssertionError(f"expected {wanted}, got {type(exc).__name__}: {first}") from exc
        if not re.search(self.match, message):
            raise AssertionError(f"expected {wanted}, got message: {message!r}") from exc
        self.exception = exc
        self.traceback = format_trimmed(exc, tb)
        if not self.quiet:
            print(self.traceback)
        return True

    def __repr__(self) -> str:
        seen = f", caught {type(self.exception).__name__}" if self.exception else ""
        return f"expect_error({self.exc_type.__name__}, {self.match!r}{seen})"


def expect_error(exc_type: type[BaseException], match: str = "", *, quiet: bool = False) -> ExpectedError:
    """`with expect_error(RuntimeError, "not require grad"): loss.backward()` shows the trimmed traceback."""
    return ExpectedError(exc_type, match, quiet=quiet)
