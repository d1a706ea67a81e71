"""The kernel-side export, judged by the pure verdict functions the grader calls, without a kernel."""

from __future__ import annotations

import json

import torch
import torch.nn.functional as F
from learner import run_cell

import helpers
from autograd_course.challenge import PARTS, NotAttempted, Outcome, Variant, part1_verdict, part2_verdict
from autograd_course.challenge.draw import variant_for
from autograd_course.challenge.export import export_answers, export_path
from autograd_course.protocol import LEARNER_ENV
from helpers import make_tiny_problem


def _judge(tmp_path, ex_id: str, learner: str | None):
    """What the grader does: read the files, draw the learner's variant itself, call the verdicts."""
    data = json.loads(export_path(tmp_path, ex_id, 1).read_text())
    trace = torch.load(export_path(tmp_path, ex_id, 2), weights_only=True)
    one = part1_verdict(ex_id, learner, data["stage"], data["summary"], data["seed"])
    two = part2_verdict(ex_id, learner, trace, trace["seed"])
    return data, one, two


def _solved_namespace(ex_id: str, variant: Variant) -> dict:
    ns = {"seed": 0, "device": "cpu", "torch": torch, "F": F}
    ns |= {name: getattr(helpers, name) for name in helpers.__all__}
    from autograd_course.challenge.catalogue import build_broken

    code = build_broken(variant)
    ns |= {k: code[k] for k in ("broken_setup", "compute_loss", "broken_step")}
    ns["inputs"], ns["targets"] = make_tiny_problem(0)
    for spec in PARTS.values():
        run_cell(ns, spec.solution(variant))
    return ns


def test_placeholders_export_as_not_attempted(tmp_path, monkeypatch):
    monkeypatch.delenv(LEARNER_ENV, raising=False)
    export_answers({"stage": NotAttempted, "evidence": NotAttempted}, str(tmp_path), "A", [1, 2])
    data, one, two = _judge(tmp_path, "A", None)
    assert data["not_attempted"] and data["summary"] is None
    assert one.outcome is two.outcome is Outcome.NOT_ATTEMPTED


def test_a_learners_answers_export_with_their_variant_and_pass(tmp_path, monkeypatch):
    monkeypatch.setenv(LEARNER_ENV, "ada")
    variant = variant_for("ada", "M3")
    export_answers(_solved_namespace("M3", variant), str(tmp_path), "M3", [1, 2])
    data, one, two = _judge(tmp_path, "M3", "ada")
    assert Variant.from_json(data["variant"]) == variant and data["learner"] == "ada"
    assert one.outcome is Outcome.CORRECT, one.message
    assert two.outcome is Outcome.CORRECT and all(ok for _, ok in two.checks), two.message


def test_judged_against_someone_elses_draw_the_same_answers_fail(tmp_path, monkeypatch):
    monkeypatch.setenv(LEARNER_ENV, "ada")
    ada = variant_for("ada", "M1")
    other = next(who for who in (f"s{i}" for i in range(50)) if variant_for(who, "M1").bug != ada.bug)
    export_answers(_solved_namespace("M1", ada), str(tmp_path), "M1", [1])
    data = json.loads(export_path(tmp_path, "M1", 1).read_text())
    assert part1_verdict("M1", other, data["stage"], data["summary"]).outcome is Outcome.INCORRECT


def test_a_forged_summary_that_does_not_match_the_broken_run_fails():
    fake = {"type": "TensorInfo", "shape": [], "requires_grad": False, "grad_fn": None}
    fake |= {"min": 1.0, "max": 1.0, "mean": 1.0, "nan": 0, "inf": 0}
    verdict = part1_verdict("A", None, "LOSS_NOT_IN_GRAPH", fake)
    assert verdict.outcome is Outcome.INCORRECT and "does not match" in verdict.message
    broken = part1_verdict("A", None, "LOSS_NOT_IN_GRAPH", {"type": 3})
    assert broken.outcome is Outcome.INCORRECT and "cannot read" in broken.message
