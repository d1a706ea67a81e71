"""Where the course lives on disk and what it contains, in order: the one module that knows the paths.

In a checkout (an editable install) the course folders are the checkout's own `notebooks/`,
`exercises/` and `solutions/`, edited in place. In an installed wheel they are package data in
`autograd_course/content/`, copied there by the build (see setup.py), with the same layout.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from autograd_course.course_times import estimate
from autograd_course.exercises import EXERCISES

__all__ = [
    "COURSE_MAP",
    "FOLDERS",
    "Lesson",
    "challenge_minutes",
    "checkout",
    "content_dir",
    "course_map_text",
    "course_notebooks",
    "course_root",
    "exercise_ids",
    "exercise_notebooks",
    "exercise_titles",
    "find_exercise",
    "repo_root",
]

# The course folders, relative to the course root, and the one other file the package reads.
FOLDERS = ("notebooks", "exercises", "solutions")
PACKAGED = Path(__file__).resolve().parent / "content"


@dataclass(frozen=True)
class Lesson:
    """One notebook of the course map."""

    number: str
    title: str
    learn: str

    def notebook(self) -> Path:
        """This lesson's notebook in notebooks/."""
        found = sorted(content_dir("notebooks").glob(f"{self.number}_*.ipynb"))
        if not found:
            raise FileNotFoundError(
                f"lesson {self.number} has no notebook {self.number}_*.ipynb in notebooks/"
            )
        return found[0]

    @property
    def minutes(self) -> int:
        """The time a learner needs, estimated from the notebook (autograd_course.course_times)."""
        return estimate(self.notebook()).minutes

    def __repr__(self) -> str:
        return f"Lesson({self.number} {self.title!r}, {self.minutes} min)"


COURSE_MAP: tuple[Lesson, ...] = (
    Lesson("00", "The mental model", "requires_grad, is_leaf, grad_fn, .grad and the live graph"),
    Lesson("01", "Graph cuts", "does not require grad: detach, .item(), NumPy, inference_mode"),
    Lesson("02", "Gradient accumulation", "growing gradients, zero_grad and set_to_none"),
    Lesson("03", "Backward twice", "freed graphs, retain_graph, hidden state and truncated BPTT"),
    Lesson("04", "In-place operations", "version counters, saved tensors and safe in-place ops"),
    Lesson("05", "Grad modes", "eval() vs no_grad vs inference_mode vs enable_grad"),
    Lesson(
        "06",
        "Frozen and forgotten parameters",
        "requires_grad, optimizer coverage, parameters that never move",
    ),
    Lesson(
        "07",
        "NaN and Inf",
        "where NaN and Inf come from, the first non-finite stage, masking, zero gradients (round, .long())",
    ),
    Lesson(
        "08",
        "NaN born in backward",
        "NaN gradients, per-sample gradients (torch.func: buffers, BatchNorm, dropout), anomaly mode",
    ),
    Lesson("09", "Gradient hooks", "tensor and parameter hooks, conditional hooks, watch_gradients"),
    Lesson("10", "Clipping and norms", "clip_grad_norm_, grad_norm, explosions before the loss shows"),
    Lesson(
        "11",
        "Gradients as values",
        "non-scalar backward (vector-Jacobian products), autograd.grad, create_graph for gradient penalties",
    ),
    Lesson(
        "12",
        "Checking a gradient",
        "a wrong custom backward, finite differences in float64, gradcheck in float64 (parameters too)",
    ),
    Lesson("13", "A debugging harness", "one batch, one step: the checklist on a real model"),
    Lesson(
        "14",
        "The autograd doctor",
        "diagnose() and watch_non_finite() on every bug; runs that differ without a bug",
    ),
    Lesson(
        "15",
        "Bugs from the field: registration",
        "plain lists, dicts and tuples, .to() copies that are not leaves",
    ),
    Lesson(
        "16",
        "Bugs from the field: layers",
        "BatchNorm under no_grad, softmax + CE, a custom autograd.Function (twice differentiable),"
        " in place on views",
    ),
    Lesson(
        "17",
        "Bugs from the field: the training loop",
        "loss logging that keeps graphs, GradScaler skips and clipping, pure float16 with Adam,"
        " schedules stepped per batch, optimizer.step() as an in-place write",
    ),
    Lesson(
        "18",
        "Bugs from the field: wrappers",
        "DDP unused parameters, activation checkpointing, torch.compile hooks, module backward hooks",
    ),
    Lesson(
        "19",
        "Custom autograd Functions",
        "the ctx API: save_for_backward (inputs or outputs), mark_dirty, mark_non_differentiable,"
        " needs_input_grad, None gradients; once_differentiable; derivatives not implemented",
    ),
    Lesson(
        "20",
        "Forward mode and higher-order gradients",
        "jvp and dual numbers, pass counts, create_graph, the backward(create_graph=True) reference cycle",
    ),
    Lesson(
        "21",
        "Graph hooks",
        "node hooks and prehooks on grad_fn, register_multi_grad_hook, full backward pre-hooks,"
        " the deprecated register_backward_hook",
    ),
    Lesson(
        "22",
        "Distributed training and device errors",
        "gradient accumulation under DDP with no_sync(), DDP's debug level naming parameters,"
        " asynchronous device errors and CUDA_LAUNCH_BLOCKING",
    ),
)


def checkout() -> Path | None:
    """The source checkout this package runs from (an editable install), or None when installed."""
    root = Path(__file__).resolve().parent.parent
    return root if (root / "pyproject.toml").is_file() and (root / "notebooks").is_dir() else None


def course_root() -> Path:
    """The folder holding notebooks/, exercises/ and solutions/.

    $AUTOGRAD_COURSE_ROOT when set, else the checkout, else the package data of an installed wheel.
    """
    env = os.environ.get("AUTOGRAD_COURSE_ROOT")
    if env:
        return Path(env).resolve()
    return checkout() or PACKAGED


repo_root = course_root  # the name the rest of the code base used before the course could be installed


def content_dir(folder: str, root: Path | None = None) -> Path:
    """One course folder ("notebooks", "exercises" or "solutions") under root (default: the course)."""
    if folder not in FOLDERS:
        raise ValueError(f"unknown course folder {folder!r}; expected one of {', '.join(FOLDERS)}")
    return (root or course_root()) / folder


def course_notebooks(folder: str = "notebooks", root: Path | None = None) -> list[Path]:
    """The numbered notebooks of one course folder, in course order."""
    return sorted(content_dir(folder, root).glob("[0-9][0-9]_*.ipynb"))


def exercise_notebooks(folder: str = "exercises", root: Path | None = None) -> list[Path]:
    """Every challenge notebook of exercises/ (or solutions/), in exercise order (A-E, then M1-M3)."""
    return sorted(p for p in content_dir(folder, root).glob("*.ipynb") if not p.name.startswith("."))


def exercise_ids() -> list[str]:
    """The exercise ids, in order (A-E, then M1-M3): the challenge's own data, no torch import."""
    return list(EXERCISES)


def find_exercise(name: str, folder: str = "exercises") -> Path | None:
    """The notebook of one exercise, by id in any case ("a", "M1") or by file name; None if unknown."""
    stem = Path(name).name.removesuffix(".ipynb")
    for ex_id in EXERCISES:
        found = sorted(content_dir(folder).glob(f"{ex_id}_*.ipynb"))
        if found and (stem.upper() == ex_id or stem == found[0].stem):
            return found[0]
    return None


def exercise_titles() -> dict[str, str]:
    """Exercise id to title, from the challenge's own data; no torch import."""
    return {ex.id: ex.title for ex in EXERCISES.values()}


def challenge_minutes() -> int:
    """The time the whole challenge (every notebook in exercises/) takes, by the same method."""
    return sum(estimate(nb).minutes for nb in exercise_notebooks())


def course_map_text() -> str:
    """The course map as plain text: number, title, what you learn, minutes."""
    width = max(len(lesson.title) for lesson in COURSE_MAP)
    lines = ["Course map (the lessons, in order):"]
    for lesson in COURSE_MAP:
        try:
            minutes = f"{lesson.minutes:>3} min"
        except FileNotFoundError:  # an install without the lessons (the grader's bundle)
            minutes = "  ? min"
        lines.append(f"  {lesson.number}  {lesson.title:<{width}}  {minutes}  {lesson.learn}")
    count = len(exercise_notebooks())
    lines.append(
        f"  then: the TinyNet bug challenge ({count} notebooks, {challenge_minutes()} min),"
        " graded with `autograd-course check`"
    )
    return "\n".join(lines)
