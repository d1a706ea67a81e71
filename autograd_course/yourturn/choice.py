"""Checks for answers naming options: one reason among plausible ones, or the set of snippets that do X."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from autograd_course.yourturn.engine import correct, incorrect

__all__ = ["letter_of", "letters_of", "one_reason", "strings_of", "which_ones"]

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


def one_reason(right: str, why: Mapping[str, str]) -> Callable[[Any], tuple]:
    """A check for one letter: `why` says, for every option, why it is (or is not) the reason."""

    def check(answer: Any) -> tuple:
        letter = letter_of(answer)
        if letter not in why:
            return incorrect(
                f"expected one of the letters {', '.join(sorted(why))} as a string, got {answer!r}"
            )
        return (correct if letter == right else incorrect)(f"({letter}) {why[letter]}")

    return check


def which_ones(truth: Callable[[], Mapping[str, bool]], what: str) -> Callable[[Any], tuple]:
    """A check for a set of letters; `truth()` runs every option and maps its letter to: does it do `what`?

    The options are the letters `truth()` names: they are stated once, as the keys of the snippets it runs.
    """

    def check(answer: Any) -> tuple:
        does = truth()
        given = letters_of(answer)
        if given is None or not given <= does.keys():
            return incorrect(
                f"expected a set of letters among {', '.join(sorted(does))}, such as {{'a'}}, got {answer!r}"
            )
        right = {letter for letter, done in does.items() if done}
        if given == right:
            return correct(f"{', '.join(sorted(right)) or 'none'}: exactly the ones that {what}.")
        extra = ", ".join(sorted(given - right))
        missed = ", ".join(sorted(right - given))
        parts = ([f"chosen but wrong: {extra}"] if extra else []) + ([f"missed: {missed}"] if missed else [])
        return incorrect(f"you chose {sorted(given)}; {'; '.join(parts)} (the right ones {what})")

    return check
