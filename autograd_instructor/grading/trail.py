"""The audit trail of one graded part: what the grader ran, what it printed and returned, each check.

Built in the grader's own process from what grading already has: the hidden runs it made
(challenge/hidden.py), the stream output of the cell that ran them (what the answer printed), the
files those runs wrote (read again, size-capped, tensors with weights_only) and the part's verdict.
Kept as plain JSON in `Record.trail`: "ran" (list of str), "printed" (str), "returned" (str) and
"checks" (list of {"name", "status": passed|failed|not_run, "measured", "expected"}). Everything a
reader of the trail gets is tolerant: a key may be missing (an older results.json, a part that never
ran), and the pages render what is there.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import nbformat
import torch

from autograd_course.fixing.fixcheck import CHECKS
from autograd_course.fixing.record import read_fix_record
from autograd_course.parsing import parse
from autograd_instructor.challenge.catalogue import BUGS
from autograd_instructor.challenge.evidence import describe
from autograd_instructor.challenge.hidden import hidden_path, hidden_runs
from autograd_instructor.challenge.parts import part1_verdict
from autograd_instructor.grading.judging import EXPORT_LIMIT

__all__ = [
    "CHECK_EXPECTED",
    "TRAIL_MIME",
    "add_trails",
    "executed_with_trails",
    "printed_by_part",
    "trail_of",
    "trail_text",
]

PRINTED_LIMIT = 4000  # characters of an answer's printed output kept per part
TRAIL_MIME = "application/vnd.autograd-course.trail+json"
CHECK_EXPECTED = {
    "true_loss": "the loss returned is the loss of the weights it was backpropagated from",
    "no_carryover": "each step's gradients are that step's own",
    "params_move": "every parameter changes during training, at the intended learning rate",
    "loss_falls": "the loss falls well below its first value",
}


def _call_args(source: str) -> tuple[str, int, str] | None:
    """(exercise, part, export folder) of the grader cell running a part's first hidden run:
    `_proofrun.run_part1(...)` or `_fixrun.run_fix(...)`, each (source, code, name, seed, out_file)."""
    try:
        node = parse(source).body[0].value  # type: ignore[attr-defined]
        if getattr(node.func, "attr", "") not in ("run_fix", "run_part1"):
            return None
        out = Path(ast.literal_eval(node.args[4]))
        first = re.fullmatch(r"(.+)-part([12])-hidden0\.(pt|json)", out.name)
        return (first.group(1), int(first.group(2)), str(out.parent)) if first else None
    except (SyntaxError, IndexError, AttributeError, ValueError, TypeError):
        return None


def printed_by_part(nb: Any, export_dir: Path) -> dict[tuple[str, int], str]:
    """{(exercise, part): what the cell running that part's hidden runs printed} for one export folder."""
    found = {}
    for cell in getattr(nb, "cells", []):
        args = _call_args(cell.get("source", "")) if cell.get("cell_type") == "code" else None
        if args is None or args[2] != str(export_dir):
            continue
        text = "".join(
            out.get("text", "") for out in cell.get("outputs", []) if out.get("output_type") == "stream"
        )
        found[args[:2]] = text if len(text) <= PRINTED_LIMIT else text[:PRINTED_LIMIT] + "\n[... cut]"
    return found


def _ran(learner: str | None, ex_id: str, part: int) -> list[str]:
    """Each hidden run of a part, as a sentence."""
    lines = []
    for k, (variant, seed) in enumerate(hidden_runs(learner, ex_id, part)):
        shape = "your own code shape" if k == 0 or part == 2 else "another code shape"
        what = "the answer as a proof" if part == 1 else "the fixed functions in your code, trained"
        where = f" (in {BUGS[variant.bug].where})" if variant.bug in BUGS else ""
        lines.append(
            f"run {k + 1}: {what} on bug {variant.bug}{where} in {shape} {variant.shape!r}, seed {seed}"
        )
    return lines


def _load(path: Path) -> dict:
    if not path.is_file() or path.stat().st_size > EXPORT_LIMIT:
        return {}
    data = path.read_bytes()
    try:
        loaded = json.loads(data) if path.suffix == ".json" else read_fix_record(data)
    except Exception:  # a file the judging refused already; the trail says nothing of it
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _raised(error: Any) -> str:
    if not isinstance(error, dict):
        return ""
    line = f" on line {error['line']}" if error.get("line") else ""
    return f"raised {error.get('name')}{line}: {error.get('message')}"


def _part1_run(ex_id: str, hidden: tuple, k: int, run: dict, earlier_failed: bool) -> tuple[str, dict]:
    """(what run k returned, its check) for part 1; hidden: the grader's own (variant, seed) of run k."""
    name = f"run {k + 1}: stage and evidence"
    if not run:
        return "nothing recorded", {"name": name, "status": "not_run", "measured": "", "expected": ""}
    stage, summary = run.get("stage"), run.get("summary")
    returned = f"stage {stage or '(not set)'}; evidence: " + (describe(summary) if summary else "(not set)")
    if raised := _raised(run.get("error")):
        returned += f"; {raised}"
    if earlier_failed or run.get("not_attempted"):
        return returned, {"name": name, "status": "not_run", "measured": returned, "expected": ""}
    variant, seed = hidden
    verdict = part1_verdict(ex_id, variant, stage, summary if isinstance(summary, dict) else {}, seed)
    status = "passed" if verdict.status == "passed" else "failed"
    bug = BUGS.get(variant.bug)
    stage = f"Stage.{bug.stage}" if bug else "the stage of the bug"
    expected = f"{stage}, shown by evidence computed on this run"
    return returned, {"name": name, "status": status, "measured": verdict.message, "expected": expected}


def _part1(ex_id: str, learner: str | None, runs: list[dict]) -> dict:
    returned, checks = [], []
    for k, (run, hidden) in enumerate(zip(runs, hidden_runs(learner, ex_id, 1), strict=False)):
        text, check = _part1_run(ex_id, hidden, k, run, any(c["status"] == "failed" for c in checks))
        returned.append(f"run {k + 1}: {text}")
        checks.append(check)
    return {"returned": "\n".join(returned), "checks": checks}


def _measures(run: dict) -> dict[str, str]:
    """What one part-2 run measured: {"loss": ..., "moved": ...}, or {"error": ...}. The learner's
    training is the record's `fix` (read_fix_record's form); the answer's own error sits beside it."""
    fix = run.get("fix") if isinstance(run.get("fix"), dict) else {}
    if fix.get("error") or run.get("raised") or fix.get("incomplete"):
        raised = f" ({_raised(run.get('raised'))})" if run.get("raised") else ""
        return {"error": str(fix.get("error") or fix.get("incomplete") or "") + raised}
    losses = fix.get("losses") or []
    if not losses:
        return {"error": "not attempted" if fix.get("not_attempted") else "nothing recorded"}
    params, names = fix.get("params") or [], fix.get("names") or []
    still = [n for n in names if params and n in params[0] and torch.equal(params[0][n], params[-1][n])]
    return {
        "loss": f"loss {losses[0]:.4g} -> {losses[-1]:.4g} in {len(losses)} steps",
        "moved": f"never changed: {', '.join(still)}" if still else "every parameter changed",
    }


def _part2(record: Any, runs: list[dict]) -> dict:
    measures = [_measures(run) for run in runs]
    returned = [f"run {k + 1}: " + "; ".join(m.values()) for k, m in enumerate(measures)]
    judged = dict(record.checks)
    first_failed = next((n for n, ok in record.checks if not ok), None)
    per_check = {"loss_falls": "loss", "params_move": "moved"}
    checks = []
    for name in CHECKS:
        expected = CHECK_EXPECTED.get(name, "")
        if name not in judged:
            why = "not counted: the broken code already passes it" if record.checks else ""
            checks.append({"name": name, "status": "not_run", "measured": why, "expected": expected})
            continue
        key = per_check.get(name, "error")
        said = [f"run {k + 1}: {m.get(key, m.get('error', ''))}" for k, m in enumerate(measures)]
        runs_said = "; ".join(said)
        measured = record.message if name == first_failed else (runs_said if name in per_check else "")
        status = "passed" if judged[name] else "failed"
        checks.append({"name": name, "status": status, "measured": measured, "expected": expected})
    return {"returned": "\n".join(returned), "checks": checks}


def trail_of(record: Any, export_dir: Path, learner: str | None, printed: str) -> dict:
    """The trail of one judged part (see the module's docstring for its keys)."""
    ex_id, part = record.exercise, record.part
    trail: dict[str, Any] = {"ran": _ran(learner, ex_id, part), "printed": printed}
    runs = [_load(hidden_path(export_dir, ex_id, part, k)) for k in range(len(trail["ran"]))]
    if not any(runs):
        trail["ran"] = [f"{line} (wrote nothing)" for line in trail["ran"]]
        return trail | {"returned": "", "checks": []}
    return trail | (_part1(ex_id, learner, runs) if part == 1 else _part2(record, runs))


def add_trails(records: list, nb: Any, export_dir: Path, learner: str | None) -> None:
    """Fill each judged part's `trail` that the judging left empty (never overwrites one it set)."""
    printed = printed_by_part(nb, export_dir)
    for r in records:
        if r.part in (1, 2) and not r.trail:
            try:
                r.trail = trail_of(r, export_dir, learner, printed.get((r.exercise, r.part), ""))
            except Exception as exc:  # the trail explains a grade; it must never cost one
                r.trail = {"returned": f"the trail could not be built: {type(exc).__name__}"}


def trail_text(record: Any) -> str:
    """The trail as plain text (for the executed notebook and terminals)."""
    trail = record.trail or {}
    lines = [f"{record.exercise} part {record.part}: {record.status}: {record.message}"]
    lines += [f"ran {line}" for line in trail.get("ran", [])]
    if trail.get("printed"):
        lines += ["printed:", trail["printed"].rstrip()]
    if trail.get("returned"):
        lines += ["returned:", trail["returned"]]
    for c in trail.get("checks", []):
        measured = f": {c.get('measured')}" if c.get("measured") else ""
        lines.append(f"check {c.get('name')} {c.get('status')}{measured}")
    return "\n".join(lines)


def executed_with_trails(nb: Any, records: list, export_dir: Path) -> Any:
    """nb with each part's verdict and trail added as an output of the cell that ran that part."""
    by_part = {(r.exercise, r.part): r for r in records if r.part in (1, 2)}
    for cell in getattr(nb, "cells", []):
        args = _call_args(cell.get("source", "")) if cell.get("cell_type") == "code" else None
        if args is None or args[2] != str(export_dir) or args[:2] not in by_part:
            continue
        record = by_part[args[:2]]
        data = {"text/plain": trail_text(record), TRAIL_MIME: {"status": record.status, **record.trail}}
        cell.setdefault("outputs", []).append(nbformat.v4.new_output("display_data", data))
    return nb
