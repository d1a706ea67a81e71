"""Whose variant an unstamped notebook is: resolved from the broken code it printed, or listed.

A notebook made by `start --seed ID` (or with AUTOGRAD_COURSE_LEARNER set) carries ID in its metadata,
and the grader uses that (autograd_course.learner.learner_for). One without a stamp was drawn with an
id the grader cannot see; its id is resolved among the learner's own candidate ids (roster id, Canvas
user id, Gradescope sid and email) by the broken code the learner's kernel printed (`print(ex.code())`
in every exercise's setup cell), and otherwise the notebook is graded by its folder's id and listed
for the instructor ("Learner ids to check" in summary.md, `note` in results.json). The default variant
(no id at all) is never chosen: its solutions are public; a notebook that printed it is listed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from autograd_course.exercises import EXERCISES
from autograd_course.learner import stamped_learner
from autograd_course.modes import GRADED, mode_of
from autograd_course.protocol import META_KEY
from autograd_course.saved import read_notebook
from autograd_instructor.challenge.catalogue import render
from autograd_instructor.challenge.draw import variant_for
from autograd_instructor.challenge.secret import graded_key

__all__ = ["Resolution", "add_notes", "printed_code", "resolve_learner", "resolve_submissions"]


@dataclass(frozen=True)
class Resolution:
    """The id to grade a notebook by, and a note for the instructor ('' when there is nothing to check)."""

    learner: str | None
    note: str = ""

    def __repr__(self) -> str:
        return f"Resolution({self.learner!r}{', noted' if self.note else ''})"


def _exercise(nb: dict) -> str | None:
    for cell in nb.get("cells", []):
        meta = cell.get("metadata", {}).get(META_KEY) if isinstance(cell, dict) else None
        if isinstance(meta, dict) and meta.get("exercise") in EXERCISES:
            return meta["exercise"]
    return None


def printed_code(nb: dict) -> str:
    """The text the notebook's code cells printed (stream outputs), joined."""
    texts = []
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []) if isinstance(cell, dict) else []:
            if isinstance(out, dict) and out.get("output_type") == "stream":
                text = out.get("text", "")
                texts.append("".join(text) if isinstance(text, list) else str(text))
    return "".join(texts)


def _matches(printed: str, learner: str | None, exercise: str, secret: str | None = None) -> bool:
    """Did the notebook print this learner's variant? (secret: a graded notebook, drawn by the key)"""
    drawn_by = graded_key(secret, learner) if secret and learner else learner
    return render(variant_for(drawn_by, exercise)) in printed


def resolve_learner(
    path: Path, fallback: str | None, candidates: list[str], source: str, secret: str | None = None
) -> Resolution:
    """The learner id to grade the notebook at path by; `source` says where fallback came from; secret:
    the graded release's, which a graded notebook's variant is drawn with."""
    nb = read_notebook(path)  # {} when unreadable: the grader reports that itself
    if stamped_learner(nb) is not None:
        return Resolution(fallback)
    exercise = _exercise(nb)
    if exercise is None:
        return Resolution(fallback)
    secret = secret if mode_of(nb) == GRADED else None
    ids = list(dict.fromkeys(c for c in [fallback, *candidates] if c))
    graded = f"graded as {fallback!r} ({source})"
    printed = printed_code(nb)
    if "def broken_setup" not in printed:
        return Resolution(fallback, f"no learner id stamped and no broken code printed: {graded}")
    for learner in ids:
        if _matches(printed, learner, exercise, secret):
            if learner == fallback:
                return Resolution(fallback)
            return Resolution(learner, f"no learner id stamped; its printed code is {learner!r}'s variant")
    if _matches(printed, None, exercise):
        why = "no learner id stamped and it printed the default variant's code (run without an id)"
        return Resolution(fallback, f"{why}: {graded}")
    tried = ", ".join(repr(i) for i in ids)
    return Resolution(fallback, f"no learner id stamped; its printed code is no variant of {tried}: {graded}")


def resolve_submissions(
    subs: list, candidates: dict[str, list[str]], sources: dict[str, str], secret: str | None = None
) -> dict[str, str]:
    """Set each unstamped notebook's learner (Submission.learner); {submission label: note} to report.

    candidates and sources are per student id: their other ids, and where their id came from.
    """
    notes = {}
    for sub in subs:
        if sub.problem or sub.path.suffix != ".ipynb":
            continue
        found = resolve_learner(
            sub.path,
            sub.learner,
            candidates.get(sub.student, []),
            sources.get(sub.student, "its folder"),
            secret,
        )
        sub.learner = found.learner
        if found.note:
            notes[sub.name] = found.note
    return notes


def add_notes(records: list, notes: dict[str, str]) -> None:
    """Append each submission's note to its records' `note` (results.json; summary.md lists them)."""
    for r in records:
        extra = notes.get(r.submission, "")
        if extra and extra not in r.note:
            r.note = f"{r.note}; {extra}" if r.note else extra
