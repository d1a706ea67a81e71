"""The kernel-side export and the grader-side judging of exported files, without a kernel."""

from __future__ import annotations

import json
import pickle

import torch

from autograd_course.challenge import NotAttempted
from autograd_course.challenge.catalogue import CORRECT_SETUP, CORRECT_STEP
from autograd_course.challenge.export import export_answers, export_path
from autograd_course.challenge.grading import judge_export
from helpers import Stage, TinyNet, debug_tensor, make_tiny_problem


def _namespace(**answers):
    ns = {"torch": torch, "F": torch.nn.functional, "TinyNet": TinyNet, "seed": 0}
    exec(
        CORRECT_SETUP.replace("broken_setup", "fixed_setup")
        + CORRECT_STEP.replace("broken_step", "fixed_step"),
        ns,
    )
    ns.update(answers)
    return ns


def test_placeholders_export_as_not_attempted(tmp_path):
    export_answers(
        {"stage": NotAttempted, "evidence": NotAttempted, "fixed_setup": NotAttempted},
        str(tmp_path),
        "A",
        [1, 2],
    )
    for part in (1, 2):
        record = judge_export("s.ipynb", tmp_path, "A", part, has_answer_cell=True)
        assert record.status == "not_attempted"


def test_real_answers_export_and_pass(tmp_path):
    x, y = make_tiny_problem(0)
    torch.manual_seed(0)
    loss = torch.nn.functional.mse_loss(TinyNet()(x).detach(), y)
    ns = _namespace(stage=Stage.LOSS_NOT_IN_GRAPH, evidence=debug_tensor("loss", loss))
    export_answers(ns, str(tmp_path), "A", [1, 2])
    assert json.loads(export_path(tmp_path, "A", 1).read_text())["stage"] == "LOSS_NOT_IN_GRAPH"
    assert [judge_export("s", tmp_path, "A", p, True).status for p in (1, 2)] == ["passed", "passed"]


def test_forged_or_unreadable_exports_fail_without_running_them(tmp_path, capsys):
    class Evil:
        def __reduce__(self):
            return (print, ("this must never run in the grader",))

    export_path(tmp_path, "A", 2).write_bytes(pickle.dumps(Evil(), protocol=2))
    export_path(tmp_path, "A", 1).write_text(
        '{"seed": 0, "stage": "LOSS_NOT_IN_GRAPH", "summary": {"type": 3}}'
    )
    p1, p2 = (judge_export("s", tmp_path, "A", p, True) for p in (1, 2))
    assert p1.status == "failed" and p2.status == "failed"
    assert "could not be read" in p2.message
    assert "must never run" not in capsys.readouterr().out


def test_a_forged_summary_that_does_not_match_the_broken_run_fails(tmp_path):
    fake = {"type": "TensorInfo", "shape": [], "requires_grad": False, "grad_fn": None}
    fake |= {"min": 1.0, "max": 1.0, "mean": 1.0, "nan": 0, "inf": 0}
    export_path(tmp_path, "A", 1).write_text(
        json.dumps({"seed": 0, "stage": "LOSS_NOT_IN_GRAPH", "summary": fake})
    )
    record = judge_export("s", tmp_path, "A", 1, True)
    assert record.status == "failed" and "does not match" in record.message


def test_missing_export_is_an_error_and_missing_answer_cell_not_attempted(tmp_path):
    assert judge_export("s", tmp_path, "B", 1, True).status == "error"
    assert judge_export("s", tmp_path, "B", 1, False).status == "not_attempted"
