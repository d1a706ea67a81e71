"""Checks for answers naming options: one reason among plausible ones, or the set of snippets that do X.

A wrong answer is told what is wrong with the options it chose, and how many right ones it left out, never
which: naming a left-out option would turn the second try into a copy. The full explanation of every option
comes with the correct answer. Each check carries `options(*context)`, the options it offers, so a test can
sweep every answer a learner could give.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from autograd_course.yourturn.engine import correct, incorrect

__all__ = [
    "letter_of",
    "letters_of",
    "offering",
    "one_reason",
    "set_verdict",
    "strings_of",
    "which_ones",
]

COLLECTIONS = (set, frozenset, list, tuple)  # what an answer naming several options may be written as


def strings_of(answer: Any) -> set[str] | None:
    """The set of strings a set, frozenset, list or tuple of strings holds, None for anything else."""
    if not isinstance(answer, COLLECTIONS) or not all(isinstance(item, str) for item in answer):
        return None
    return set(answer)


def letter_of(answer: Any) -> str | None:
    """The lower-case letter an answer names ("b", "B", " (b) "), None for anything else."""
    if not isinstance(answer, str):
        return None
    letter = answer.strip().strip("()").strip().lower()
    return letter if len(letter) == 1 and letter.isalpha() else None


def letters_of(answer: Any) -> set[str] | None:
    """The set of letters an answer names (a set, list or tuple of letters, or a string "bd"), else None."""
    items = list(answer) if isinstance(answer, (*COLLECTIONS, str)) else None
    if items is None:
        return None
    letters = {letter_of(item) for item in items if not (isinstance(item, str) and item in ", ")}
    return None if None in letters else letters


def offering(options: Callable[..., Iterable[str]]) -> Callable[[Callable], Callable]:
    """Mark a hand-written choice check with the options it offers (a function of the check's context)."""

    def mark(check: Callable) -> Callable:
        check.options = lambda *context: sorted(options(*context))
        return check

    return mark


def _label(option: str) -> str:
    return f"({option})" if len(option) == 1 else option


def _left_out(count: int) -> str:
    return f"{count} right option{'s are' if count > 1 else ' is'} missing"


def set_verdict(given: set[str], right: set[str], why: Mapping[str, str], what: str) -> tuple:
    """The verdict on a set of options: `why[o]` says why option `o` does, or does not, do `what`.

    Correct: every option explained. Wrong: each chosen option that is wrong explained, and only the count of
    the right options left out, so the feedback never names an option the learner did not choose.
    """
    if given == right:
        listed = ", ".join(_label(o) for o in sorted(right)) or "none"
        reasons = "; ".join(f"{_label(o)} {why[o]}" for o in sorted(why))
        return correct(f"{listed}: exactly the ones that {what}." + (f" {reasons}." if reasons else ""))
    parts = [_wrong(option, why, what) for option in sorted(given - right)]
    missing = len(right - given)
    if missing:
        parts.append(_left_out(missing) if parts else f"all you chose are right, but {_left_out(missing)}")
    return incorrect("; ".join(parts))


def _wrong(option: str, why: Mapping[str, str], what: str) -> str:
    reason = why.get(option)
    return f"{_label(option)} does not {what}" + (f": {reason}" if reason else "")


def one_reason(right: str, why: Mapping[str, str]) -> Callable[[Any], tuple]:
    """A check for one letter: `why` says, for every option, why it is (or is not) the reason.

    A wrong letter is told why it is wrong; only the right one is told the whole story.
    """

    def check(answer: Any) -> tuple:
        letter = letter_of(answer)
        if letter not in why:
            return incorrect(
                f"expected one of the letters {', '.join(sorted(why))} as a string, got {answer!r}"
            )
        return (correct if letter == right else incorrect)(f"({letter}) {why[letter]}")

    check.options = lambda *context: sorted(why)
    return check


def which_ones(
    truth: Callable[[], Mapping[str, bool]], what: str, why: Mapping[str, str] | None = None
) -> Callable[[Any], tuple]:
    """A check for a set of letters; `truth()` runs every option and maps its letter to: does it do `what`?

    The options are the letters `truth()` names: they are stated once, as the keys of the snippets it runs.
    `why` explains each option (see `set_verdict`); without it a wrong choice is only said not to do `what`.
    """

    def check(answer: Any) -> tuple:
        does = truth()
        given = letters_of(answer)
        if given is None or not given <= does.keys():
            return incorrect(
                f"expected a set of letters among {', '.join(sorted(does))}, such as {{'a'}}, got {answer!r}"
            )
        right = {letter for letter, done in does.items() if done}
        return set_verdict(given, right, why or {}, what)

    check.options = lambda *context: sorted(truth())
    return check
