"""Per-student feedback: each verdict's message and what to look at, never the checks or solutions."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from autograd_course.challenge.catalogue import EXERCISES

__all__ = ["feedback_markdown", "write_feedback"]

CHECK_TEXT = {
    "true_loss": "the loss you return is the one you backpropagate (recomputed from the weights)",
    "loss_falls": "the loss falls",
    "params_move": "every parameter moves",
    "no_carryover": "no gradient carries over between steps",
}
LOOK_AT = {
    "passed": "Well done.",
    "failed": "Re-run the notebook top to bottom and read the check cell's message.",
    "not_attempted": "Fill in the answer cell (replace NotAttempted) and run its check cell.",
    "error": "The notebook could not be graded as submitted: fix what the message names, then Run All.",
    "timeout": "The notebook ran too long: look for a loop that never ends or work that is not needed.",
    "missing": "Nothing was submitted.",
}


def feedback_markdown(student: str, name: str, records: list[Any], grade: Any) -> str:
    """The feedback page of one student, as Markdown."""
    order = list(EXERCISES)
    lines = [f"# Feedback for {name or student}", ""]
    lines.append(f"Total: **{grade.total:g} / {grade.max:g}** points.")
    lines.append("")
    for r in sorted(
        records, key=lambda r: (order.index(r.exercise) if r.exercise in order else 99, r.part or 0)
    ):
        title = f"Exercise {r.exercise}, part {r.part}" if r.part else r.submission
        lines.append(f"## {title}: {r.status.replace('_', ' ')} ({r.points:g} / {r.max_points:g})")
        lines.append("")
        if r.message:
            lines.append(r.message)
            lines.append("")
        for check, ok in r.checks:
            lines.append(f"- {'✔' if ok else '✘'} {CHECK_TEXT.get(check, check.replace('_', ' '))}")
        if r.checks:
            lines.append("")
        lines.append(f"What to look at: {LOOK_AT.get(r.status, '')}")
        if r.solution_viewed:
            lines.append("You viewed the solution of this part.")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _html(markdown: str) -> str:
    body = []
    for line in markdown.splitlines():
        if line.startswith("## "):
            body.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.startswith("# "):
            body.append(f"<h1>{html.escape(line[2:])}</h1>")
        elif line.startswith("- "):
            body.append(f"<li>{html.escape(line[2:])}</li>")
        elif line:
            text = html.escape(line).replace("**", "")
            body.append(f"<p>{text}</p>")
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
