"""Where the course lives on disk and what it contains, in order."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["COURSE_MAP", "Lesson", "course_notebooks", "repo_root"]


@dataclass(frozen=True)
class Lesson:
    """One notebook of the course map."""

    number: str
    title: str
    learn: str
    minutes: int

    def __repr__(self) -> str:
        return f"Lesson({self.number} {self.title!r}, {self.minutes} min)"


COURSE_MAP: tuple[Lesson, ...] = (
    Lesson("00", "The mental model", "requires_grad, is_leaf, grad_fn, .grad and the live graph", 20),
    Lesson("01", "Graph cuts", "does not require grad: detach, .item(), NumPy, inference_mode", 25),
    Lesson("02", "Gradient accumulation", "growing gradients, zero_grad and set_to_none", 20),
    Lesson("03", "Backward twice", "freed graphs, retain_graph, hidden state and truncated BPTT", 20),
    Lesson("04", "In-place operations", "version counters, saved tensors and safe in-place ops", 20),
    Lesson("05", "Grad modes", "eval() vs no_grad vs inference_mode vs enable_grad", 15),
    Lesson(
        "06",
        "Frozen and forgotten parameters",
        "requires_grad, optimizer coverage, parameters that never move",
        20,
    ),
    Lesson("07", "NaN and Inf", "finite checks, anomaly detection, masking after an invalid op", 25),
    Lesson("08", "Gradient hooks", "tensor and parameter hooks, conditional hooks, watch_gradients", 15),
    Lesson("09", "Clipping and norms", "clip_grad_norm_, grad_norm, explosions before the loss shows", 20),
    Lesson(
        "10", "Gradients as values", "non-scalar backward, autograd.grad, finite differences, gradcheck", 20
    ),
    Lesson("11", "A debugging harness", "one batch, one step: the checklist on a real model", 20),
    Lesson("12", "The autograd doctor", "diagnose() and watch_non_finite() on every bug", 20),
    Lesson(
        "13",
        "Bugs from the field: models",
        "plain lists, .to() copies, BatchNorm, softmax + CE, autograd.Function",
        25,
    ),
    Lesson(
        "14",
        "Bugs from the field: training tools",
        "loss logging, GradScaler, DDP, checkpointing, torch.compile",
        25,
    ),
)


def repo_root() -> Path:
    """The course checkout: $AUTOGRAD_COURSE_ROOT, else the folder above this package."""
    env = os.environ.get("AUTOGRAD_COURSE_ROOT")
    return Path(env).resolve() if env else Path(__file__).resolve().parent.parent


def course_notebooks(folder: str = "notebooks") -> list[Path]:
    """The numbered notebooks of one course folder, in course order."""
    return sorted((repo_root() / folder).glob("[0-9][0-9]_*.ipynb"))
