"""Runs inside the learner's kernel when the grader asks: writes the raw answers to files.

Nothing here decides a verdict. The grader injects one call to `export_answers` after the
learner's cells and judges the files in its own process with the pure verdict functions
(`part1_verdict`, `part2_verdict`) against the variant it draws for the student itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch

from autograd_course.challenge.catalogue import exercise
from autograd_course.challenge.draw import variant_for
from autograd_course.challenge.evidence import stage_name, summarize
from autograd_course.challenge.exercise import fix_trace
from autograd_course.challenge.parts import answers_of
from autograd_course.learner import read_learner

__all__ = ["export_answers", "export_path"]


def export_path(out_dir: str | Path, exercise_id: str, part: int) -> Path:
    """Where one part's exported answer goes."""
    return Path(out_dir) / f"{exercise_id}-part{part}.{'json' if part == 1 else 'pt'}"


def _seed(namespace: dict[str, Any]) -> int:
    seed = namespace.get("seed", 0)
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else 0


def export_answers(namespace: dict[str, Any], out_dir: str, exercise_id: str, parts: list[int]) -> None:
    """Part 1 as JSON (stage name, evidence summary or None), part 2 as a torch file (fix trace)."""
    exercise(exercise_id)
    seed = _seed(namespace)
    learner = read_learner()
    variant = variant_for(learner, exercise_id)
    for part in parts:
        path = export_path(out_dir, exercise_id, part)
        answers = answers_of(part, namespace)
        if part == 1:
            attempted = set(answers) == {"stage", "evidence"}
            data = {
                "seed": seed,
                "learner": learner,
                "variant": variant.to_json(),
                "not_attempted": not attempted,
                "stage": stage_name(answers["stage"]) if attempted else None,
                "summary": summarize(answers["evidence"]) if attempted else None,
            }
            path.write_text(json.dumps(data))
        elif part == 2:
            trace = fix_trace(variant, answers, seed, "cpu")
            trace["seed"] = seed
            torch.save(trace, path)
