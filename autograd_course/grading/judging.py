"""Verdicts from the grader's hidden runs, computed in the grader's own process from what they wrote.

Each part was run on every hidden run (challenge/hidden.py). A part passes only when every run
passes; part 2's checks pass only when they pass in every run. An answer that the screen flagged
(answer_source.screen) or that changed torch or the toolkit while it ran earns 0 and is flagged.
The raising-cell rule: an answer cell that raised is judged on the names it set before the error,
and the verdict names the error and its line.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import torch

from autograd_course.challenge.answer_source import AnswerSource
from autograd_course.challenge.hidden import HIDDEN_RUNS, hidden_path
from autograd_course.challenge.parts import part1_verdict, part2_verdict
from autograd_course.challenge.variants import Variant
from autograd_course.challenge.verdict import Outcome, Verdict

__all__ = ["EXPORT_LIMIT", "judge_part"]

EXPORT_LIMIT = 64 << 20  # bytes a hidden run's file may have; a bigger one is refused unread


def _read(path: Path) -> bytes:
    if path.stat().st_size > EXPORT_LIMIT:
        raise ValueError(f"a hidden run wrote more than {EXPORT_LIMIT >> 20} MiB")
    return path.read_bytes()


def _raised(error: dict | None) -> str:
    if not error:
        return ""
    where = f" on line {error['line']}" if error.get("line") else ""
    return f"your answer cell raised {error['name']}{where}: {error['message']}"


def _part1(ex_id: str, runs: list[dict]) -> tuple[Verdict, list[str]]:
    if all(r.get("not_attempted") for r in runs):
        why = _raised(runs[0].get("error")) or "stage and evidence are still placeholders"
        return Verdict(ex_id, 1, Outcome.NOT_ATTEMPTED, why), []
    for k, run in enumerate(runs):
        verdict = part1_verdict(
            ex_id, Variant.from_json(run["variant"]), run.get("stage"), run.get("summary") or {}, run["seed"]
        )
        if verdict.outcome is not Outcome.CORRECT:
            where = "on your own code" if k == 0 else "on your bug in another code shape"
            message = f"{where} with an unseen seed: {verdict.message}"
            if raised := _raised(run.get("error")):
                message += f" ({raised})"
            return Verdict(ex_id, 1, verdict.outcome, message), []
    return verdict, []


def _part2(ex_id: str, learner: str | None, runs: list[dict]) -> tuple[Verdict, list[str]]:
    if runs and runs[0].get("raised"):
        return Verdict(ex_id, 2, Outcome.INCORRECT, _raised(runs[0]["raised"])), []
    verdicts = [part2_verdict(ex_id, learner, run, int(run.get("seed", 0))) for run in runs]
    worst = min(verdicts, key=lambda v: (v.outcome is Outcome.CORRECT, sum(ok for _, ok in v.checks)))
    if worst.outcome is Outcome.CORRECT or worst.outcome is Outcome.NOT_ATTEMPTED:
        return worst, []
    return Verdict(ex_id, 2, worst.outcome, f"with an unseen seed: {worst.message}", worst.checks), []


def _reached(runs: list[dict]) -> list[str]:
    """What the answer reached for that the sandbox refuses (files elsewhere, network, processes)."""
    found = [f"the answer cell {e}" for r in runs for e in r.get("reached") or []]
    for r in runs:
        err = r.get("error") if isinstance(r.get("error"), dict) else r.get("raised")
        if isinstance(err, dict) and err.get("refused"):
            line = f" on line {err['line']} of the answer cell" if err.get("line") else ""
            found.append(f"the answer {err['refused']}{line} ({err['name']}: {str(err['message'])[:100]})")
    return list(dict.fromkeys(found))


def judge_part(
    export_dir: Path, ex_id: str, part: int, answer: AnswerSource | None, learner: str | None
) -> tuple[Verdict, list[str], str]:
    """(verdict, flags for the instructor, an error reason or '') of one part from its hidden runs."""
    if answer is None:
        return Verdict(ex_id, part, Outcome.NOT_ATTEMPTED, "the answer cell of this part is missing"), [], ""
    if not answer.source:
        return Verdict(ex_id, part, Outcome.NOT_ATTEMPTED, "the answer cell is empty"), [], ""
    if answer.flags:
        why = "your answer reaches into the grader's tools instead of using them: " + "; ".join(answer.flags)
        return Verdict(ex_id, part, Outcome.INCORRECT, why), list(answer.flags), ""
    paths = [hidden_path(export_dir, ex_id, part, k) for k in range(HIDDEN_RUNS)]
    if not all(p.exists() for p in paths):
        return (
            Verdict(ex_id, part, Outcome.INCORRECT, ""),
            [],
            "the grader's run of your answer stopped early",
        )
    try:
        if part == 1:
            runs = [json.loads(_read(p)) for p in paths]
        else:
            loaded = [torch.load(io.BytesIO(_read(p)), weights_only=True) for p in paths]
            runs = [r if isinstance(r, dict) else {} for r in loaded]
        if reached := _reached(runs):
            return (
                Verdict(ex_id, part, Outcome.INCORRECT, ""),
                reached,
                f"{reached[0]}: the sandbox refused it",
            )
        if changed := [f"changed {', '.join(r['changed'])} while it ran" for r in runs if r.get("changed")]:
            what = "answer" if part == 1 else "fix"
            why = f"your {what} changed torch or the toolkit: not judged"
            return Verdict(ex_id, part, Outcome.INCORRECT, why), changed, ""
        return (*(_part1(ex_id, runs) if part == 1 else _part2(ex_id, learner, runs)), "")
    except Exception as exc:  # a malformed file: the answer's run went wrong, never the batch
        return (
            Verdict(ex_id, part, Outcome.INCORRECT, ""),
            [],
            f"a hidden run could not be read: {type(exc).__name__}",
        )
