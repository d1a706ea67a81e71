"""Verdicts from the grader's hidden runs, computed in the grader's own process from what they wrote.

Each part was run on every hidden run (part 1: challenge/hidden.py; part 2: challenge/fixrun.py in a
kernel without the course). A part passes only when every run passes; part 2's checks pass only when
they pass in every run, each replayed here (fixcheck.judge_trace): the loss and gradients recomputed
at the returned weights, each update recomputed with the code's own optimizer, the held-out loss
evaluated here. The screen (answer_source.screen) is only a warning for the instructor, in both parts:
nothing a run returns is believed unchecked (part 1's evidence counts when its values match the
grader's own run of the hidden variant, part 2's training is replayed).
The raising-cell rule: an answer cell that raised is judged on the names it set before the error,
and the verdict names the error and its line. Every part also leaves a trail: what ran, what it
printed, what it returned, and each check as passed, failed or not_run. The verdict's message and
the error, which the learner reads, never hold the part's hidden seeds or the graded key (redact.py).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import torch

from autograd_course.execution.refusals import refused
from autograd_course.fixing.fixcheck import CHECKS, FixJudgement
from autograd_course.fixing.record import read_fix_record
from autograd_course.harness_core import RUN_TIME_CODE
from autograd_instructor.challenge.answer_source import AnswerSource
from autograd_instructor.challenge.hidden import HIDDEN_RUNS, hidden_path, hidden_runs
from autograd_instructor.challenge.parts import judge_part2, part1_verdict
from autograd_instructor.challenge.verdict import Outcome, Verdict
from autograd_instructor.grading.redact import Hidden

__all__ = ["EXPORT_LIMIT", "Judged", "judge_part"]

EXPORT_LIMIT = 64 << 20  # bytes a hidden run's file may have; a bigger one is refused unread


def _read(path: Path) -> bytes:
    if path.stat().st_size > EXPORT_LIMIT:
        raise ValueError(f"a hidden run wrote more than {EXPORT_LIMIT >> 20} MiB")
    return path.read_bytes()


def _raised(error: dict | None) -> str:
    if not error:
        return ""
    where = f" on line {error['line']}" if error.get("line") else ""
    cell = "your answer cell" if not error.get("cell") else f"cell {error['cell']} (which your answer uses)"
    return f"{cell} raised {error['name']}{where}: {error['message']}"


def _evidence_row(k: int, verdict: Verdict | None, run: dict) -> dict:
    """One hidden run's row of part 1's trail; verdict None: the answer set nothing, so nothing was judged."""
    where = "your own code" if k == 0 else "your bug in another code shape"
    if verdict is None:
        status, measured = "not_run", ""
    else:
        status = "passed" if verdict.outcome is Outcome.CORRECT else "failed"
        measured = f"stage {run.get('stage')}; {verdict.message}"[:400]
    return {
        "name": f"evidence, hidden run {k + 1} ({where})",
        "status": status,
        "measured": measured,
        "expected": "the stage the bug breaks, proved by values this run of the broken code produced",
    }


def _part1(ex_id: str, learner: str | None, runs: list[dict]) -> tuple[Verdict, list[str], dict]:
    hidden = hidden_runs(learner, ex_id, 1)
    trail = {
        "ran": [
            f"{'your own code shape' if k == 0 else 'another code shape'} {list(v.shape.choices)}, "
            f"hidden run {k + 1} of {len(hidden)} (seed withheld)"
            for k, (v, _) in enumerate(hidden)
        ],
        "printed": "".join(str(r.get("printed") or "") for r in runs)[-4000:],
        "returned": "; ".join(
            f"run {k + 1}: {_raised(r.get('error'))}"
            if r.get("error")
            else f"run {k + 1}: stage {r.get('stage')}, evidence {sorted(r.get('summary') or {})}"
            for k, r in enumerate(runs)
        )[:2000],
        "checks": [],
    }
    if all(r.get("not_attempted") for r in runs):
        if raised := _raised(runs[0].get("error")):
            trail["checks"] = [_evidence_row(k, None, {}) for k in range(len(hidden))]
            return Verdict(ex_id, 1, Outcome.INCORRECT, raised), [], trail | {"error": raised}
        return (
            Verdict(ex_id, 1, Outcome.NOT_ATTEMPTED, "stage and evidence are still placeholders"),
            [],
            trail,
        )
    verdict = Verdict(ex_id, 1, Outcome.INCORRECT, "")
    for k, ((variant, seed), run) in enumerate(zip(hidden, runs, strict=True)):
        verdict = part1_verdict(ex_id, variant, run.get("stage"), run.get("summary") or {}, seed)
        trail["checks"].append(_evidence_row(k, verdict, run))
        if verdict.outcome is not Outcome.CORRECT:
            where = "on your own code" if k == 0 else "on your bug in another code shape"
            message = f"{where} with an unseen seed: {verdict.message}"
            if raised := _raised(run.get("error")):
                message += f" ({raised})"
            return Verdict(ex_id, 1, verdict.outcome, message), [], trail
    return verdict, [], trail


def _described(run: dict) -> str:
    fix = run.get("fix")
    if not isinstance(fix, dict):
        return "nothing"
    if "error" in fix:
        return f"an error: {str(fix['error'])[:200]}"
    if fix.get("not_attempted"):
        return "no fixed function"
    losses = fix.get("losses") or []
    if not losses:
        return "no training"
    return f"{len(losses)} steps, loss {losses[0]:.4g} -> {losses[-1]:.4g}{_unmoved(fix)}"


def _unmoved(fix: dict) -> str:
    """The parameters the run's first and last weights hold unchanged, as a clause of the trail."""
    params = fix.get("params") or []
    try:
        same = [n for n in fix.get("names") or [] if torch.equal(params[0][n], params[-1][n])]
    except (IndexError, KeyError, TypeError, RuntimeError):
        return ", its weights not readable"
    return f", never changed: {same}" if same else ", every parameter moved"


def _merged(judged: list[FixJudgement]) -> list[dict]:
    """Each check over every hidden run: failed if it failed in one, not_run if it ran in none."""
    trails = [j.trail() for j in judged]
    merged = []
    for k, name in enumerate(CHECKS):
        rows = [t[k] for t in trails]
        row = next((r for r in rows if r["status"] == "failed"), None) or next(
            (r for r in rows if r["status"] == "passed"), rows[0]
        )
        merged.append(row | {"name": name})
    return merged


def _part2(ex_id: str, learner: str | None, runs: list[dict]) -> tuple[Verdict, list[str], dict]:
    hidden = hidden_runs(learner, ex_id, 2)
    trail = {
        "ran": [f"hidden run {k + 1} of {len(hidden)} (seed withheld)" for k in range(len(hidden))],
        "printed": "".join(str(r.get("printed") or "") for r in runs)[-4000:],
        "returned": "; ".join(f"run {k + 1}: {_described(r)}" for k, r in enumerate(runs)),
    }
    raised = runs[0].get("raised") if runs else None
    if raised and all(not isinstance(r.get("fix"), dict) or r["fix"].get("not_attempted") for r in runs):
        trail["checks"] = FixJudgement().trail()
        return Verdict(ex_id, 2, Outcome.INCORRECT, _raised(raised)), [], trail | {"error": _raised(raised)}
    judged = [
        judge_part2(ex_id, variant, r.get("fix"), seed, r.get("given"))
        for (variant, seed), r in zip(hidden, runs, strict=True)
    ]
    trail["checks"] = _merged([j for _, j in judged])
    verdicts = [v for v, _ in judged]
    flags = [v.message for v in verdicts if "changes torch, the model or the optimizer" in v.message][:1]
    flags += _caught(runs)
    worst = min(verdicts, key=lambda v: (v.outcome is Outcome.CORRECT, sum(ok for _, ok in v.checks)))
    message = worst.message + (f" ({_raised(raised)})" if raised else "")
    if worst.outcome is Outcome.CORRECT or worst.outcome is Outcome.NOT_ATTEMPTED:
        return replace(worst, message=message), flags, trail
    return Verdict(ex_id, 2, worst.outcome, f"with an unseen seed: {message}", worst.checks), flags, trail


def _caught(runs: list[dict]) -> list[str]:
    """The exceptions the fixed functions caught and went on from while a hidden run trained them."""
    found = {str(c) for r in runs if isinstance(r.get("fix"), dict) for c in r["fix"].get("swallowed") or []}
    return [
        f"during the hidden training, the fixed functions caught an exception raised inside them and went "
        f"on ({what}): what trained may be the `except` block's code, not the repaired code"
        for what in sorted(found)[:2]
    ]


def _reached(runs: list[dict]) -> list[str]:
    """What the answer reached for that the sandbox refuses (files elsewhere, network, processes)."""
    found = [f"the answer cell {e}" for r in runs for e in r.get("reached") or []]
    for r in runs:
        err = r.get("error") if isinstance(r.get("error"), dict) else r.get("raised")
        what = refused(str(err.get("name")), str(err.get("message"))) if isinstance(err, dict) else ""
        if what:
            line = f" on line {err['line']} of the answer cell" if err.get("line") else ""
            found.append(f"the answer {what}{line} ({err['name']}: {str(err['message'])[:100]})")
    for r in runs:  # part 2: the fixed training itself hit a limit (memory): no ordinary wrong fix
        trained = r.get("fix")
        what = refused("", str(trained.get("error"))) if isinstance(trained, dict) else ""
        if what:
            found.append(f"the answer's fixed training {what} ({str(trained['error'])[:100]})")
    return list(dict.fromkeys(found))


class Judged(NamedTuple):
    """One part judged: the verdict, flags for the instructor, an error reason ('' if none), the trail."""

    verdict: Verdict
    flags: list[str]
    problem: str
    trail: dict


def _load(paths: list[Path], part: int, hidden: Hidden) -> list[dict]:
    """What the hidden runs wrote, what the answer wrote in it (its errors) redacted (redact.py)."""
    read = json.loads if part == 1 else read_fix_record  # part 2's: strictly, its trainings unpacked
    runs = [read(_read(p)) for p in paths]
    for run in runs:
        for error in (run.get("error"), run.get("raised")):
            if isinstance(error, dict):
                error |= {k: hidden.answers(error[k]) for k in ("name", "message") if k in error}
        for trained in (run.get("fix"), run.get("given")):
            if isinstance(trained, dict) and "error" in trained:
                trained["error"] = hidden.answers(trained["error"])
    return runs


def _judged_runs(ex_id: str, part: int, learner: str | None, runs: list[dict]) -> Judged:
    failed = Verdict(ex_id, part, Outcome.INCORRECT, "")
    if reached := _reached(runs):
        why = (
            "the grader judges the cell's own code"
            if RUN_TIME_CODE in reached[0]
            else "the sandbox refused it"
        )
        return Judged(failed, reached, f"{reached[0]}: {why}", {})
    if changed := [f"changed {', '.join(r['changed'])} while it ran" for r in runs if r.get("changed")]:
        why = "your answer changed torch or the toolkit: not judged"
        return Judged(replace(failed, message=why), changed, "", {})
    if part == 1:
        verdict, flags, trail = _part1(ex_id, learner, runs)
    else:
        verdict, flags, trail = _part2(ex_id, learner, runs)
    return Judged(verdict, flags, trail.pop("error", ""), trail)


def judge_part(
    export_dir: Path, ex_id: str, part: int, answer: AnswerSource | None, learner: str | None
) -> Judged:
    """One part judged from its hidden runs: verdict, flags, error reason ('' if none) and trail."""
    if answer is None:
        return Judged(
            Verdict(ex_id, part, Outcome.NOT_ATTEMPTED, "the answer cell of this part is missing"), [], "", {}
        )
    if answer.error:
        return Judged(Verdict(ex_id, part, Outcome.INCORRECT, ""), [], answer.error, {})
    if not answer.source:
        return Judged(Verdict(ex_id, part, Outcome.NOT_ATTEMPTED, "the answer cell is empty"), [], "", {})
    paths = [hidden_path(export_dir, ex_id, part, k) for k in range(HIDDEN_RUNS)]
    failed = Verdict(ex_id, part, Outcome.INCORRECT, "")
    if not all(p.exists() for p in paths):
        return Judged(failed, [], "the grader's run of your answer stopped early", {})
    hidden = Hidden.of(learner, [seed for _, seed in hidden_runs(learner, ex_id, part)])
    try:
        judged = _judged_runs(ex_id, part, learner, _load(paths, part, hidden))
    except Exception as exc:  # a malformed file: the answer's run went wrong, never the batch
        return Judged(failed, [], f"a hidden run could not be read: {type(exc).__name__}", {})
    verdict = replace(judged.verdict, message=hidden.message(judged.verdict.message))
    flags = [*judged.flags, *(f"warning: {f}" for f in answer.flags)]
    return judged._replace(verdict=verdict, problem=hidden.message(judged.problem), flags=flags)
