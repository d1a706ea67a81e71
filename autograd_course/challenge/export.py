"""Runs inside the learner's kernel when the grader asks: writes the raw answers to files.

Nothing here decides a verdict. The grader injects one call to `export_answers` after the
learner's cells and judges the files in its own process (see autograd_course.challenge.grading).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch

from autograd_course.challenge.catalogue import exercise
from autograd_course.challenge.evidence import stage_name, summarize
from autograd_course.challenge.exercise import fix_trace_or_error
from autograd_course.challenge.verdict import NotAttempted

__all__ = ["export_answers", "export_path"]


def export_path(out_dir: str | Path, exercise_id: str, part: int) -> Path:
    """Where one part's exported answer goes."""
    return Path(out_dir) / f"{exercise_id}-part{part}.{'json' if part == 1 else 'pt'}"


def _seed(namespace: dict[str, Any]) -> int:
    seed = namespace.get("seed", 0)
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else 0


def export_answers(namespace: dict[str, Any], out_dir: str, exercise_id: str, parts: list[int]) -> None:
    """Write part 1 as JSON (stage name, evidence summary) and part 2 as a torch file (fix trace)."""
    exercise(exercise_id)
    seed = _seed(namespace)
    for part in parts:
        path = export_path(out_dir, exercise_id, part)
        if part == 1:
            stage, evidence = namespace.get("stage", NotAttempted), namespace.get("evidence", NotAttempted)
            attempted = stage is not NotAttempted and evidence is not NotAttempted
            data = {"seed": seed, "not_attempted": not attempted}
            if attempted:
                data |= {"stage": stage_name(stage), "summary": summarize(evidence)}
            path.write_text(json.dumps(data))
        elif part == 2:
            setup, step = (
                namespace.get("fixed_setup", NotAttempted),
                namespace.get("fixed_step", NotAttempted),
            )
            if setup is NotAttempted or step is NotAttempted:
                trace: dict[str, Any] = {"not_attempted": True}
            else:
                trace = fix_trace_or_error(setup, step, seed, "cpu")
            trace["seed"] = seed
            torch.save(trace, path)
