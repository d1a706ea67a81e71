"""`expect_error`: reproduce an error in a notebook without the cell ending in an error."""

from __future__ import annotations

import re
from types import TracebackType

__all__ = ["ExpectedError", "expect_error"]


class ExpectedError:
    """Context manager that requires its body to raise a matching exception, then swallows it."""

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
        if not self.quiet:
            first = message.strip().splitlines()[0] if message.strip() else ""
            print(f"{type(exc).__name__}: {first}" if first else type(exc).__name__)
        return True

    def __repr__(self) -> str:
        seen = f", caught {type(self.exception).__name__}" if self.exception else ""
        return f"expect_error({self.exc_type.__name__}, {self.match!r}{seen})"


def expect_error(exc_type: type[BaseException], match: str = "", *, quiet: bool = False) -> ExpectedError:
    """`with expect_error(RuntimeError, "does not require grad"): loss.backward()`."""
    return ExpectedError(exc_type, match, quiet=quiet)
