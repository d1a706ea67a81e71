"""Per-student feedback: each verdict's message and what to look at, never the checks or solutions."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from autograd_course.exercises import EXERCISES

__all__ = [
    "CHECK_TEXT",
    "exercise_named",
    "feedback_markdown",
    "look_at",
    "override_lines",
    "write_feedback",
]

# Each part-2 check as the student reads it: (when it passed, when it did not). A failed check says
# what it measured, not a cause: a fix that freezes a parameter or raises fails them too.
CHECK_TEXT = {
    "true_loss": (
        "the loss you return is the one you backpropagate",
        "not shown: the loss you return is the one you backpropagate (recomputed from the weights)",
    ),
    "loss_falls": ("the loss falls", "not shown: the loss falls over the training steps"),
    "params_move": (
        "every parameter moves",
        "not shown: every parameter moves (some parameter never changed)",
    ),
    "no_carryover": (
        "no gradient carries over between steps",
        "not shown: each step's gradients are that step's own (they carried over, were missing, "
        "or the step raised)",
    ),
}
# What to do about a failed part 2 check, by check: the first failed one is named in "What to look at".
CHECK_ADVICE = {
    "true_loss": "Return the loss you call backward() on, computed from the model's current weights.",
    "loss_falls": "Run your fixed step a few times on a fresh setup and print the loss: it should fall.",
    "params_move": "Compare snapshot_parameters before and after a step: which parameter does not change?",
    "no_carryover": "Print grad_norm(model) before and after each step: gradients must be fresh every step.",
}
LOOK_AT = {
    "passed": "Well done.",
    "not_attempted": "Fill in the answer cell (replace NotAttempted) and run its check cell.",
    "error": "Fix the error the message names (cell and line), then Restart & Run All before submitting.",
    "timeout": "The notebook ran too long: look for a loop that never ends or work that is not needed.",
    "missing": "Nothing was submitted.",
}
FAILED_PART1 = (
    "Read the message: it says whether the stage or the evidence was not accepted. Compare your evidence "
    "with the exercise's evidence contract, computed on a fresh broken_setup(seed, device)."
)
UNREADABLE = (
    "This file could not be read as a challenge notebook: download your notebook again "
    "(File > Download, a .ipynb file) and submit that file."
)
UNPARSABLE = (
    "Fix the syntax error the message names (cell and line), then Restart & Run All before submitting."
)
EXERCISE_FILE = re.compile(r"(?:^|/)(?P<id>[A-Z]\d?)_[^/]*\.ipynb$")


def exercise_named(submission: str) -> str | None:
    """The exercise a submitted file is named for (`A_detached_output.ipynb` is A), else None."""
    found = EXERCISE_FILE.search(submission)
    return found["id"] if found and found["id"] in EXERCISES else None


def look_at(record: Any) -> str:
    """What a student should do about one record."""
    if record.status == "error" and record.exercise == "-":
        return UNPARSABLE if "syntax error" in record.message else UNREADABLE
    if record.status == "failed" and record.part == 1:
        return FAILED_PART1
    if record.status == "failed":
        failed = [check for check, ok in record.checks if not ok]
        return CHECK_ADVICE.get(failed[0], "") if failed else "Read the message: it says what your fix did."
    if record.status == "missing" and "untouched" in record.message:
        return "Your notebooks hold no answer: fill in the answer cells, run them, save, and submit again."
    return LOOK_AT.get(record.status, "")


def check_line(check: str, ok: bool) -> str:
    """One part-2 check as a line of feedback."""
    passed, failed = CHECK_TEXT.get(check, (check.replace("_", " "), f"not yet: {check.replace('_', ' ')}"))
    return f"✔ {passed}" if ok else f"✘ {failed}"


def _entry(r: Any) -> list[str]:
    title = f"Exercise {r.exercise}, part {r.part}" if r.part else f"`{r.submission}`"
    points = f" ({r.points:g} / {r.max_points:g} points)" if r.max_points else ""
    lines = [f"## {title}: {r.status.replace('_', ' ')}{points}", ""]
    if r.part and r.mode:
        lines += [f"*A {r.mode} notebook; graded by the grader on inputs you had not seen.*", ""]
    if r.message:
        lines += [r.message, ""]
    if getattr(r, "override", None):
        lines += [*override_lines(r.override), ""]
    lines += [f"- {check_line(check, ok)}" for check, ok in r.checks]
    lines += [""] if r.checks else []
    lines.append(f"What to look at: {look_at(r)}")
    if r.attempts:
        times = "once" if r.attempts == 1 else f"{r.attempts} times"
        lines.append(f"You ran this part's check {times} before you submitted.")
    if r.solution_viewed:
        lines.append("You viewed the solution of this part.")
    return [*lines, ""]


def override_lines(override: dict) -> list[str]:
    """What a learner reads of an instructor's override: the points set, and the comment."""
    lines = [f"**Your instructor set this part's points to {override.get('points', 0):g}.**"]
    if override.get("comment"):
        lines.append(f"Instructor's comment: {override['comment']}")
    return lines


def feedback_markdown(student: str, name: str, records: list[Any], grade: Any) -> str:
    """The feedback page of one student, as Markdown."""
    order = list(EXERCISES)
    lines = [
        f"# Feedback for {name or student}",
        "",
        f"Total: **{grade.total:g} / {grade.max:g}** points.",
        "",
    ]
    # a notebook that could not be graded (a syntax error) was still submitted for the exercise it names
    submitted = {r.exercise if r.exercise in EXERCISES else exercise_named(r.submission) for r in records}
    if any(r.status != "missing" for r in records) and submitted != set(order):
        missing = ", ".join(e for e in order if e not in submitted)
        lines += [f"Not submitted (0 points): exercises {missing}.", ""]
    for r in sorted(
        records, key=lambda r: (order.index(r.exercise) if r.exercise in order else -1, r.part or 0)
    ):
        lines += _entry(r)
    return "\n".join(lines).rstrip() + "\n"


def _inline(text: str) -> str:
    """Markdown's inline code, bold and italics as HTML, everything else escaped."""
    out = html.escape(text)
    parts = re.split(r"(`[^`]+`)", out)  # code spans first: nothing inside them is emphasis
    for i, part in enumerate(parts):
        if i % 2:
            parts[i] = f"<code>{part[1:-1]}</code>"
        else:
            part = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", part)
            parts[i] = re.sub(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])", r"<em>\1</em>", part)
    return "".join(parts)


# Readable from a phone to a laptop: one column, at most ~70 characters wide, wrapping long code.
STYLE = (
    "body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:0 auto;padding:1rem;color:#1a1a1a}"
    "h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:1.6rem;border-top:1px solid #ddd;padding-top:.8rem}"
    "code{background:#f3f3f3;padding:0 .2em;border-radius:3px;overflow-wrap:anywhere}"
    "li{margin:.2rem 0}@media(prefers-color-scheme:dark){body{background:#161616;color:#e8e8e8}"
    "code{background:#2a2a2a}h2{border-color:#444}}"
)


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
    head = (
        '<!doctype html><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Feedback</title>\n'
        f"<style>{STYLE}</style>\n"
    )
    return head + "\n".join(body) + "\n"


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
