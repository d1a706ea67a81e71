"""Hidden values kept out of what a learner reads: the graded key and the hidden seeds of a part.

An answer runs with its hidden run's seed (`seed`) and, in a graded class, its learner's key in the
kernel's environment; it can put either in an error message, and the grader's own message may name
the seed it ran. Verdict messages reach the learner (feedback pages, Gradescope's results.json), so
each is redacted where it is made (judging.py): any run of 8 or more hex digits found in the key,
`seed=N`, and each hidden seed written as a number of its own, in its simple encodings too (the seed
plus or minus one, and in hex when that has 6 or more digits, any case, with or without `0x`). A seed
under 100 is redacted only in what the answer wrote (its error's name and message, its training's
error), where a small number of the grader's own text (a line, a step) cannot be hit. What the
answer printed stays, whole, in the instructor's trail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["HIDDEN", "Hidden"]

HIDDEN = "[hidden]"
_KEY = re.compile(r"[0-9a-f]{64}")  # a graded key: HMAC-SHA256 hex (a practice id is public)
_HEX_RUN = re.compile(r"[0-9a-fA-F]{8,}")
_SMALL = 100  # seeds below this are redacted in the answer's own words only
_HEX_DIGITS = 6  # a seed's hex form is hidden from this length on (shorter ones are common words)


def _number(seed: int) -> re.Pattern:
    return re.compile(rf"(?<!\d)(?<!\d\.){seed}(?!\d)(?!\.\d)")


def _encodings(seed: int) -> list[re.Pattern]:
    """The seed as a number of its own, the numbers next to it (seeds of 100 or more: a small one's
    neighbours are a line's or a step's number) and their hex forms of 6 or more digits."""
    near = [seed + 1, seed, seed - 1] if seed >= _SMALL else [seed]
    found = [_number(n) for n in near]
    hexes = [f"{n:x}" for n in near if len(f"{n:x}") >= _HEX_DIGITS]
    return found + [re.compile(rf"(?<![0-9a-fA-F])(?:0x)?{h}(?![0-9a-fA-F])", re.IGNORECASE) for h in hexes]


@dataclass(frozen=True)
class Hidden:
    """The values of one part that a learner must not read: the key ('' when none) and the seeds."""

    key: str
    seeds: tuple[int, ...]

    def __repr__(self) -> str:
        return f"Hidden(key={'set' if self.key else 'none'}, {len(self.seeds)} seeds)"

    @classmethod
    def of(cls, learner: str | None, seeds: list[int]) -> Hidden:
        key = learner if learner and _KEY.fullmatch(learner) else ""
        return cls(key, tuple(sorted(set(seeds), reverse=True)))

    def _key(self, text: str) -> str:
        if not self.key:
            return text
        return _HEX_RUN.sub(lambda m: HIDDEN if m.group().lower() in self.key else m.group(), text)

    def message(self, text: str) -> str:
        """A message the learner reads: key pieces, `seed=N` and hidden seeds of 100 or more."""
        text = self._key(text)
        for seed in self.seeds:
            text = text.replace(f"seed={seed}", "an unseen seed")
            text = self._hide(seed, text) if seed >= _SMALL else text
        return text

    def answers(self, text: str) -> str:
        """What the answer wrote (an error's name or message): key pieces and every hidden seed."""
        text = self._key(str(text))
        for seed in self.seeds:
            text = self._hide(seed, text)
        return text

    @staticmethod
    def _hide(seed: int, text: str) -> str:
        for form in _encodings(seed):
            text = form.sub(HIDDEN, text)
        return text
