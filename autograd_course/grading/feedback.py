"""Per-student feedback: each verdict's message and what to look at, never the checks or solutions."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from autograd_course.challenge.catalogue import EXERCISES

__all__ = ["CHECK_TEXT", "feedback_markdown", "look_at", "write_feedback"]

# Each part-2 check as the student reads it: (when it passed, when it did not).
CHECK_TEXT = {
    "true_loss": (
        "the loss you return is the one you backpropagate",
        "the loss you return is not the one you backpropagate (recomputed from the weights)",
    ),
    "loss_falls": ("the loss falls", "the loss does not fall"),
    "params_move": ("every parameter moves", "some parameter never moves"),
    "no_carryover": (
        "no gradient carries over between steps",
        "gradients carry over from one step to the next",
    ),
}
LOOK_AT = {
    "passed": "Well done.",
    "failed": "Re-run the notebook top to bottom and read the check cell's message.",
    "not_attempted": "Fill in the answer cell (replace NotAttempted) and run its check cell.",
    "error": "Fix the error the message names (cell and line), then Restart & Run All before submitting.",
    "timeout": "The notebook ran too long: look for a loop that never ends or work that is not needed.",
    "missing": "Nothing was submitted.",
}
UNREADABLE = (
    "This file could not be read as a challenge notebook: download your notebook again "
    "(File > Download, a .ipynb file) and submit that file."
)


def look_at(record: Any) -> str:
    """What a student should do about one record."""
    if record.status == "error" and record.exercise == "-":
        return UNREADABLE
    return LOOK_AT.get(record.status, "")


def check_line(check: str, ok: bool) -> str:
    """One part-2 check as a line of feedback."""
    passed, failed = CHECK_TEXT.get(check, (check.replace("_", " "), f"not yet: {check.replace('_', ' ')}"))
    return f"✔ {passed}" if ok else f"✘ {failed}"


def _entry(r: Any) -> list[str]:
    title = f"Exercise {r.exercise}, part {r.part}" if r.part else f"`{r.submission}`"
    points = f" ({r.points:g} / {r.max_points:g} points)" if r.max_points else ""
    lines = [f"## {title}: {r.status.replace('_', ' ')}{points}", ""]
    if r.message:
        lines += [r.message, ""]
    lines += [f"- {check_line(check, ok)}" for check, ok in r.checks]
    lines += [""] if r.checks else []
    lines.append(f"What to look at: {look_at(r)}")
    if r.attempts:
        times = "once" if r.attempts == 1 else f"{r.attempts} times"
        lines.append(f"You ran this part's check {times} before you submitted.")
    if r.solution_viewed:
        lines.append("You viewed the solution of this part.")
    return [*lines, ""]


def feedback_markdown(student: str, name: str, records: list[Any], grade: Any) -> str:
    """The feedback page of one student, as Markdown."""
    order = list(EXERCISES)
    lines = [
        f"# Feedback for {name or student}",
        "",
        f"Total: **{grade.total:g} / {grade.max:g}** points.",
        "",
    ]
    submitted = {r.exercise for r in records if r.exercise in EXERCISES}
    if any(r.status != "missing" for r in records) and submitted != set(order):
        missing = ", ".join(e for e in order if e not in submitted)
        lines += [f"Not submitted (0 points): exercises {missing}.", ""]
    for r in sorted(
        records, key=lambda r: (order.index(r.exercise) if r.exercise in order else -1, r.part or 0)
    ):
        lines += _entry(r)
    return "\n".join(lines).rstrip() + "\n"


def _inline(text: str) -> str:
    """Markdown's inline code and bold as HTML, everything else escaped."""
    out = html.escape(text)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)


def _html(markdown: str) -> str:
    body: list[str] = []
    in_list = False
    for line in markdown.splitlines():
        if line.startswith("- ") != in_list:
            body.append("<ul>" if not in_list else "</ul>")
            in_list = not in_list
        if line.startswith("## "):
            body.append(f"<h2>{_inline(line[3:])}</h2>")
        elif line.startswith("# "):
            body.append(f"<h1>{_inline(line[2:])}</h1>")
        elif line.startswith("- "):
            body.append(f"<li>{_inline(line[2:])}</li>")
        elif line:
            body.append(f"<p>{_inline(line)}</p>")
    if in_list:
        body.append("</ul>")
    return '<!doctype html><meta charset="utf-8"><title>Feedback</title>\n' + "\n".join(body) + "\n"


def _safe_name(student: str) -> str:
    return "".join(c if c.isalnum() or c in "-_.@" else "_" for c in student) or "_"


def write_feedback(records: list[Any], grades: list[Any], out: Path) -> None:
    """feedback/<student>.md and .html for every student."""
    folder = out / "feedback"
    folder.mkdir(parents=True, exist_ok=True)
    for grade in grades:
        mine = [r for r in records if r.student == grade.id]
        text = feedback_markdown(grade.id, grade.name, mine, grade)
        (folder / f"{_safe_name(grade.id)}.md").write_text(text)
        (folder / f"{_safe_name(grade.id)}.html").write_text(_html(text))
