"""The challenge's placeholder answer, NotAttempted; verdicts themselves are autograd_course.checks'."""

from __future__ import annotations

from autograd_course.checks import Outcome, Verdict

__all__ = ["NotAttempted", "NotAttemptedError", "Outcome", "Verdict"]


class NotAttemptedError(Exception):
    """Raised when a placeholder NotAttempted is called as a function: the answer is not written yet."""

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: not attempted: {self}"]


class _NotAttemptedType:
    """The placeholder the generated exercises assign; the checks read it as "not attempted"."""

    _instance: _NotAttemptedType | None = None

    def __new__(cls) -> _NotAttemptedType:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NotAttempted"

    def __call__(self, *args: object, **kwargs: object) -> None:
        raise NotAttemptedError("this answer is still the placeholder NotAttempted")


NotAttempted = _NotAttemptedType()
