"""Variants: a bug and a code shape (one innocuous choice per slot of a working training step).

Which variant each learner gets is drawn in draw.py.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import lru_cache
from itertools import product

__all__ = ["SLOTS", "Shape", "Variant", "digest", "shape_number", "shapes"]


# Innocuous choices a working training step can be written with. Every shape trains TinyNet on the
# mean squared error from the same seeded weights, so a diff against "a normal loop" shows many
# differences and does not point at the planted bug.
SLOTS: dict[str, tuple[str, ...]] = {
    "optimizer": (
        "torch.optim.Adam({params}, lr={lr})",
        "torch.optim.AdamW({params}, lr={lr}, weight_decay=0.0)",
        "torch.optim.Adam({params}, lr={lr}, betas=(0.9, 0.99))",
    ),
    "params": ("model.parameters()", "list(model.parameters())", "[p for p in model.parameters()]"),
    "out": ("outputs", "prediction", "out"),
    "forward": ("model(inputs)", "model.forward(inputs)", "model.fc2(torch.relu(model.fc1(inputs)))"),
    "loss": (
        "F.mse_loss({out}, targets)",
        "(({out} - targets) ** 2).mean()",
        "torch.nn.functional.mse_loss({out}, targets, reduction='mean')",
    ),
    "zero": ("optimizer.zero_grad()", "optimizer.zero_grad(set_to_none=True)", "model.zero_grad()"),
    "train": ("", "model.train()"),
    "log": ("", "last_loss = loss.item()  # for the progress bar"),
    "ret": ("return loss", "return loss.detach()"),
}


@dataclass(frozen=True)
class Shape:
    """One choice per slot of SLOTS (indices); Shape() is the plain default shape."""

    choices: tuple[int, ...] = (0,) * len(SLOTS)

    def pick(self, slot: str) -> str:
        """The text this shape uses for one slot."""
        return SLOTS[slot][self.choices[_SLOT_INDEX[slot]]]

    def with_choice(self, slot: str, choice: int) -> Shape:
        """The same shape with one slot's choice replaced."""
        choices = list(self.choices)
        choices[_SLOT_INDEX[slot]] = choice
        return Shape(tuple(choices))

    def __repr__(self) -> str:
        return f"Shape({''.join(str(c) for c in self.choices)})"


_SLOT_INDEX = {slot: i for i, slot in enumerate(SLOTS)}


@lru_cache(maxsize=1)
def shapes() -> tuple[Shape, ...]:
    """Every code shape, in a fixed order."""
    return tuple(Shape(tuple(c)) for c in product(*(range(len(v)) for v in SLOTS.values())))


def digest(*parts: str) -> int:
    """A stable 64-bit number from strings (sha256), the same in every process and on every machine."""
    return int.from_bytes(hashlib.sha256("\x1f".join(parts).encode()).digest()[:8], "big")


def shape_number(number: int) -> Shape:
    """The shape at position number (mod the count) of shapes(), decoded without building the list."""
    number %= math.prod(len(v) for v in SLOTS.values())
    choices = []
    for options in reversed(SLOTS.values()):
        number, choice = divmod(number, len(options))
        choices.append(choice)
    return Shape(tuple(reversed(choices)))


@dataclass(frozen=True)
class Variant:
    """The bug (a catalogue key) and the code shape one learner gets in one exercise."""

    bug: str
    shape: Shape = Shape()

    def to_json(self) -> dict:
        """Plain data for exports and results files."""
        return {"bug": self.bug, "shape": list(self.shape.choices)}

    @classmethod
    def from_json(cls, data: dict) -> Variant:
        """The inverse of to_json; a clear error for anything else."""
        try:
            choices = tuple(int(c) for c in data["shape"])
            bug = str(data["bug"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"expected {{'bug': str, 'shape': [int, ...]}}, got {data!r}") from exc
        if len(choices) != len(SLOTS) or any(
            not 0 <= c < len(v) for c, v in zip(choices, SLOTS.values(), strict=True)
        ):
            raise ValueError(f"not a code shape: {list(choices)}")
        return cls(bug, Shape(choices))

    def __repr__(self) -> str:
        return f"Variant({self.bug}, {self.shape!r})"
