"""Where the course lives on disk and what it contains, in order: the one module that knows the paths.

In a checkout (an editable install) the course folders are the checkout's own `notebooks/`,
`exercises/` and `solutions/`, edited in place. In an installed wheel they are package data in
`autograd_course/content/`, copied there by the build (see setup.py), with the same layout.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "COURSE_MAP",
    "FOLDERS",
    "Lesson",
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
    "sanitize_config",
]

# The course folders, relative to the course root, and the one other file the package reads.
FOLDERS = ("notebooks", "exercises", "solutions")
SANITIZE_CONFIG = "tests/nbval_sanitize.cfg"
PACKAGED = Path(__file__).resolve().parent / "content"


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
    Lesson("07", "NaN and Inf", "where NaN and Inf come from, the first non-finite stage, masking", 15),
    Lesson(
        "08", "NaN born in backward", "NaN gradients, per-sample gradients (torch.func), anomaly mode", 15
    ),
    Lesson("09", "Gradient hooks", "tensor and parameter hooks, conditional hooks, watch_gradients", 15),
    Lesson("10", "Clipping and norms", "clip_grad_norm_, grad_norm, explosions before the loss shows", 20),
    Lesson(
        "11", "Gradients as values", "non-scalar backward, autograd.grad, finite differences, gradcheck", 20
    ),
    Lesson("12", "A debugging harness", "one batch, one step: the checklist on a real model", 20),
    Lesson("13", "The autograd doctor", "diagnose() and watch_non_finite() on every bug", 20),
    Lesson(
        "14",
        "Bugs from the field: registration",
        "plain lists, dicts and tuples, .to() copies that are not leaves",
        15,
    ),
    Lesson(
        "15",
        "Bugs from the field: layers",
        "BatchNorm under no_grad, softmax + CE, a custom autograd.Function",
        20,
    ),
    Lesson(
        "16",
        "Bugs from the field: the training loop",
        "loss logging that keeps graphs, GradScaler skips and clipping",
        15,
    ),
    Lesson(
        "17",
        "Bugs from the field: wrappers",
        "DDP unused parameters, activation checkpointing, torch.compile hooks",
        20,
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
    """The exercise ids, in order, read from the exercise file names (A_detached_output.ipynb is A)."""
    return [nb.name.split("_", 1)[0] for nb in exercise_notebooks()]


def find_exercise(name: str, folder: str = "exercises") -> Path | None:
    """The notebook of one exercise, by id in any case ("a", "M1") or by file name; None if unknown."""
    stem = Path(name).name.removesuffix(".ipynb")
    for nb in exercise_notebooks(folder):
        ex_id = nb.name.split("_", 1)[0]
        if stem in (nb.stem, ex_id) or stem.upper() == ex_id:
            return nb
    return None


def exercise_titles() -> dict[str, str]:
    """Exercise id to title, from each notebook's "# Challenge A · Title" heading; no torch import."""
    titles = {}
    for nb in exercise_notebooks():
        ex_id, title = nb.name.split("_", 1)[0], nb.stem.split("_", 1)[-1].replace("_", " ")
        for cell in json.loads(nb.read_text(encoding="utf-8")).get("cells", []):
            source = "".join(cell.get("source", ""))
            if cell.get("cell_type") == "markdown" and source.startswith("# "):
                title = source.splitlines()[0].split("·", 1)[-1].strip()
                break
        titles[ex_id] = title
    return titles


def sanitize_config() -> Path:
    """The nbval sanitize rules that `run --compare` applies to outputs."""
    return course_root() / SANITIZE_CONFIG


def course_map_text() -> str:
    """The course map as plain text: number, title, what you learn, minutes."""
    width = max(len(lesson.title) for lesson in COURSE_MAP)
    lines = ["Course map (notebooks/):"]
    for lesson in COURSE_MAP:
        lines.append(f"  {lesson.number}  {lesson.title:<{width}}  {lesson.minutes:>3} min  {lesson.learn}")
    lines.append("  then: exercises/ (the TinyNet bug challenge), graded with `autograd-course check`")
    return "\n".join(lines)
