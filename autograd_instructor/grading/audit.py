"""The instructor's audit pages: per learner, every part's verdict with its reasons, from results alone.

`audit/<student>.html` shows, for each graded part, the points (and an override with its comment),
the verdict's message, what the grader ran, what the answer printed and returned, and each check
passed, failed or not run with what it measured; `audit/index.html` lists the learners. Written from
the records (results.json holds the same trail), so "why did this get 0?" needs no rerun. For the
instructor only: it names hidden seeds and code shapes, which the learner's feedback never does.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path
from typing import Any

from autograd_course.exercises import EXERCISES

__all__ = ["audit_html", "audit_index", "safe_name", "write_audit"]

STYLE = (
    "body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;color:#1a1a1a}"
    "h1{font-size:1.45rem}h2{font-size:1.1rem;margin:1.6rem 0 .4rem;border-top:1px solid #ccc;"
    "padding-top:.8rem;overflow-wrap:anywhere}"
    "pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f4f4f4;padding:.5rem;border-radius:4px;"
    "margin:.2rem 0 .6rem}code{overflow-wrap:anywhere}"
    "table{border-collapse:collapse;width:100%;table-layout:fixed}td,th{border-bottom:1px solid #ddd;"
    "padding:.25rem .4rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}"
    ".passed{color:#0a6b2a}.failed,.error,.timeout{color:#a4161a}.not_run,.not_attempted,.missing{color:#666}"
    ".override{background:#fff6d5;border-left:4px solid #d4a200;padding:.4rem .6rem}"
    "dt{font-weight:600;margin-top:.4rem}dd{margin:0}"
    "@media(max-width:40rem){table,tbody,tr,td,th{display:block;width:auto}thead{display:none}"
    "td{border:0;padding:.1rem 0}tr{border-bottom:1px solid #ddd;padding:.3rem 0}"
    "td[data-label]::before{content:attr(data-label) ': ';font-weight:600}}"
    "@media(prefers-color-scheme:dark){body{background:#161616;color:#e8e8e8}pre{background:#262626}"
    ".override{background:#3a3210}.passed{color:#6fd08c}.failed,.error,.timeout{color:#ff8a8a}}"
)
HEAD = (
    '<!doctype html><html lang="en"><meta charset="utf-8">'
    '<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title}</title>'
    "<style>{style}</style>\n"
)


def safe_name(student: str) -> str:
    """A learner id as a file name (the same rule feedback/ uses)."""
    return "".join(c if c.isalnum() or c in "-_.@" else "_" for c in student) or "_"


def _order(r: Any) -> tuple:
    ex = list(EXERCISES).index(r.exercise) if r.exercise in EXERCISES else -1
    return (r.submission, ex, r.part or 0)


COLUMNS = (("check", 22), ("status", 10), ("measured", 43), ("expected", 25))  # name, width in %


def _text(value: object) -> str:
    """Escaped text with Markdown's `code` spans (the verdicts' own) as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(str(value)))


def _check_row(c: dict) -> str:
    status = str(c.get("status", ""))
    cells = [
        _text(c.get("name", "")),
        f'<span class="{escape(status)}">{escape(status.replace("_", " "))}</span>',
        _text(c.get("measured", "")),
        _text(c.get("expected", "")),
    ]
    return (
        "<tr>"
        + "".join(f'<td data-label="{h}">{cell}</td>' for (h, _), cell in zip(COLUMNS, cells))
        + "</tr>"
    )


def _checks_table(checks: list) -> str:
    rows = "".join(_check_row(c) for c in checks if isinstance(c, dict))
    head = "".join(f'<th style="width:{w}%">{h}</th>' for h, w in COLUMNS)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _trail_html(trail: dict) -> list[str]:
    """The trail's parts that are present, in reading order; nothing for an empty trail."""
    out = []
    if trail.get("ran"):
        out.append("<dt>What the grader ran</dt><dd><ul>")
        out += [f"<li>{escape(str(line))}</li>" for line in trail["ran"]]
        out.append("</ul></dd>")
    if "printed" in trail:
        printed = str(trail["printed"]) or "(nothing)"
        out.append(f"<dt>What the answer printed</dt><dd><pre>{escape(printed)}</pre></dd>")
    if trail.get("returned"):
        out.append(f"<dt>What it returned</dt><dd><pre>{escape(str(trail['returned']))}</pre></dd>")
    if trail.get("checks"):
        out.append(f"<dt>Checks</dt><dd>{_checks_table(trail['checks'])}</dd>")
    return ["<dl>", *out, "</dl>"] if out else []


def _part_html(r: Any, first_of_notebook: bool) -> list[str]:
    title = f"{r.exercise} part {r.part}" if r.part else "whole notebook"
    points = f" · {r.points:g} / {r.max_points:g}" if r.max_points else ""
    status = escape(r.status.replace("_", " "))
    out = [
        f'<h2 id="{escape(f"{r.submission}-{r.exercise}-{r.part}")}">{escape(title)}: '
        f'<span class="{escape(r.status)}">{status}</span>{points}</h2>',
        f"<p><code>{escape(r.submission)}</code> · {escape(r.mode)} notebook</p>",
    ]
    if r.override:
        o = r.override
        was = f" (the grader gave {o.get('grader_points', 0):g})" if "grader_points" in o else ""
        comment = f": {escape(str(o.get('comment', '')))}" if o.get("comment") else ""
        out.append(
            f'<p class="override">Points set by the instructor: {o.get("points", 0):g}{was}{comment}</p>'
        )
    if r.message:
        out.append(f"<p>{_text(r.message)}</p>")
    out += [f"<p>Flagged: {_text(f)}</p>" for f in r.flags]
    if r.note and first_of_notebook:
        out.append(f"<p>Learner id of this notebook: {escape(r.note)}</p>")
    return out + _trail_html(r.trail or {})


def audit_html(student: str, name: str, records: list[Any], grade: Any) -> str:
    """One learner's audit page."""
    who = f"{name} ({student})" if name and name != student else student
    body = [
        f"<h1>Audit: {escape(who)}</h1>",
        f"<p>Total <strong>{grade.total:g} / {grade.max:g}</strong> · {escape(grade.status)} · "
        '<a href="index.html">all learners</a> · '
        f'<a href="../feedback/{escape(safe_name(student))}.html">their feedback</a></p>',
    ]
    seen: set[str] = set()
    for r in sorted(records, key=_order):
        body += _part_html(r, r.submission not in seen)
        seen.add(r.submission)
    return HEAD.format(title=escape(f"Audit: {who}"), style=STYLE) + "\n".join(body) + "\n"


def audit_index(grades: list[Any]) -> str:
    """audit/index.html: one line per learner, linking to their page."""
    rows = "".join(
        f'<tr><td><a href="{escape(safe_name(g.id))}.html">{escape(g.id)}</a></td><td>{escape(g.name)}</td>'
        f"<td>{g.total:g} / {g.max:g}</td><td>{escape(g.status)}</td></tr>"
        for g in grades
    )
    head = "<thead><tr><th>id</th><th>name</th><th>points</th><th>status</th></tr></thead>"
    return (
        HEAD.format(title="Audit", style=STYLE)
        + f"<h1>Audit</h1><table>{head}<tbody>{rows}</tbody></table>\n"
    )


def write_audit(records: list[Any], grades: list[Any], out: Path) -> None:
    """audit/index.html and audit/<student>.html for every learner."""
    folder = out / "audit"
    folder.mkdir(parents=True, exist_ok=True)
    for grade in grades:
        mine = [r for r in records if r.student == grade.id]
        (folder / f"{safe_name(grade.id)}.html").write_text(audit_html(grade.id, grade.name, mine, grade))
    (folder / "index.html").write_text(audit_index(grades))
