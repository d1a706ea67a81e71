"""The evidence contract: every kind of evidence that proves a stage is accepted, in every exercise alike;
evidence that is not real, or that proves another stage (or nothing), is refused."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from autograd_instructor.challenge import Outcome, Variant, part1_verdict
from autograd_instructor.challenge.catalogue import BUGS, build_broken
from autograd_instructor.challenge.contract import PROOFS, contract_markdown, judge_evidence
from autograd_instructor.challenge.evidence import summarize
from helpers import (
    NonFiniteError,
    Stage,
    assert_finite,
    autograd_graph,
    classify_parameter_gradients,
    debug_tensor,
    debug_training_step,
    diagnose,
    expect_error,
    grad_norm,
    gradient_report,
    make_tiny_problem,
    parameter_changes,
    parameter_report,
    snapshot_parameters,
)


def fresh(bug: str):
    """A fresh broken setup for a bug's default variant: (code, model, optimizer, inputs, targets)."""
    code = build_broken(Variant(bug))
    model, optimizer = code["broken_setup"](0, "cpu")
    return code, model, optimizer, *make_tiny_problem(0)


def step(bug: str, model, optimizer, x, y, code=None):
    (code or build_broken(Variant(bug)))["broken_step"](model, optimizer, x, y)


def raised(bug):
    code, model, opt, x, y = fresh(bug)
    with expect_error(RuntimeError) as caught:
        for _ in range(2):
            code["broken_step"](model, opt, x, y)
    return caught.exception  # the RuntimeError itself


def loss_info(bug):
    code, model, _, x, y = fresh(bug)
    return debug_tensor("loss", code["compute_loss"](model, x, y))


def loss_graph(bug):
    code, model, _, x, y = fresh(bug)
    return autograd_graph(code["compute_loss"](model, x, y), model)


def diagnosis(bug):
    code, model, opt, x, y = fresh(bug)
    return diagnose(lambda: code["broken_step"](model, opt, x, y), model, opt)


def after_step(report):
    def build(bug):
        code, model, opt, x, y = fresh(bug)
        code["broken_step"](model, opt, x, y)
        return report(model, opt)

    return build


def changes(bug):
    code, model, opt, x, y = fresh(bug)
    before = snapshot_parameters(model)
    code["broken_step"](model, opt, x, y)
    return parameter_changes(model, before)


def step_report(bug):
    _, model, opt, x, y = fresh(bug)
    return debug_training_step(model, opt, F.mse_loss, x, y)


def series(measure, steps=3):
    def build(bug):
        code, model, opt, x, y = fresh(bug)
        out = []
        for _ in range(steps):
            code["broken_step"](model, opt, x, y)
            out.append(measure(model))
        return out

    return build


def non_finite(bug):
    code, model, _, x, y = fresh(bug)
    with expect_error(NonFiniteError) as caught:
        assert_finite("loss", code["compute_loss"](model, x, y))
    return caught  # the ExpectedError wrapper: also accepted


def with_loss_on_its_own(bug):
    return [raised(bug), loss_info(bug)]


def with_grad_mode(bug):
    return [raised(bug), torch.is_grad_enabled()]


def grad_mode_in_the_step(bug):
    with torch.no_grad():  # where broken_step computes its loss
        return [raised(bug), torch.is_grad_enabled()]


ACCEPTED = [
    ("A", "TensorInfo", loss_info),
    ("A", "AutogradGraph", loss_graph),
    ("A", "list of error and grad mode", with_grad_mode),
    ("F", "list of error and TensorInfo", with_loss_on_its_own),
    ("F", "list of error and grad mode", grad_mode_in_the_step),
    ("B", "ParameterReport", lambda b: parameter_report(fresh(b)[1])),
    ("B", "GradientReport", after_step(lambda m, o: gradient_report(m))),
    ("B", "AutogradGraph", loss_graph),
    ("B", "StepReport", step_report),
    ("B", "list of a proof and its Diagnosis", lambda b: [parameter_report(fresh(b)[1]), diagnosis(b)]),
    ("C", "GradClassification", after_step(classify_parameter_gradients)),
    ("C", "ParameterChanges", changes),
    ("H", "GradClassification", after_step(classify_parameter_gradients)),
    ("D", "list of grad_norm", series(grad_norm)),
    ("D", "list of GradientReport", series(gradient_report)),
    ("E", "NonFiniteError", non_finite),
    ("E", "TensorInfo", loss_info),
    ("J", "TensorInfo", loss_info),
    ("G", "ParameterChanges", changes),
    (
        "G",
        "StepReport",
        lambda b: (lambda c, m, o, x, y: debug_training_step(m, o, F.mse_loss, x, y))(*fresh(b)),
    ),
    ("I", "error", raised),
    ("K", "GradientReport", after_step(lambda m, o: gradient_report(m))),
    ("L", "error", raised),
    ("M", "GradientReport", after_step(lambda m, o: gradient_report(m))),
    ("M", "GradClassification", after_step(classify_parameter_gradients)),
]


@pytest.mark.parametrize(("bug", "kind", "build"), ACCEPTED, ids=[f"{b}-{k}" for b, k, _ in ACCEPTED])
def test_every_kind_of_evidence_that_proves_the_stage_is_accepted(bug, kind, build):
    ok, message = judge_evidence(Variant(bug), 0, BUGS[bug].stage, summarize(build(bug)))
    assert ok, message


def test_the_same_evidence_is_judged_the_same_in_every_exercise():
    # bug A's loss, seen on its own, is proof in exercise A and in a mystery round that drew A
    summary = summarize(loss_info("A"))
    a = part1_verdict("A", Variant("A"), "LOSS_NOT_IN_GRAPH", summary)
    m = part1_verdict("M2", Variant("A"), "LOSS_NOT_IN_GRAPH", summary)
    assert a.outcome is m.outcome is Outcome.CORRECT


@pytest.mark.parametrize(
    ("bug", "stage", "evidence", "words"),
    [
        # real evidence, but it proves nothing about the named stage
        (
            "C",
            "NOT_IN_OPTIMIZER",
            lambda: parameter_report(fresh("C")[1]),
            "does not prove Stage.NOT_IN_OPTIMIZER",
        ),
        ("D", "GRADS_ACCUMULATING", lambda: grad_norm(after_step(lambda m, o: m)("D")), "does not prove"),
        # consecutive and real, but with lr=0 the gradients stay the same: no proof of accumulation
        ("G", "GRADS_ACCUMULATING", lambda: series(grad_norm)("G"), "does not prove"),
        # evidence for the other stage its symptom fits: the code does not fail there
        ("B", "NOT_IN_OPTIMIZER", lambda: after_step(classify_parameter_gradients)("C"), "does not match"),
        ("A", "LOSS_NOT_IN_GRAPH", lambda: raised("A"), "does not prove"),
        ("F", "LOSS_NOT_IN_GRAPH", lambda: with_grad_mode("F"), "does not prove"),
        ("A", "GRAD_MODE_DISABLED", lambda: with_loss_on_its_own("A"), "does not prove"),
        # the doctor's verdict alone is not a proof
        ("B", "PARAMS_FROZEN", lambda: diagnosis("B"), "doctor's verdict, not your proof"),
        # not from this notebook's broken code
        ("C", "NOT_IN_OPTIMIZER", lambda: [diagnosis("H"), changes("H")], "does not match"),
        ("D", "GRADS_ACCUMULATING", lambda: series(grad_norm)("D")[::-1], "does not match"),
        ("G", "PARAMS_NOT_UPDATED", lambda: 0.123, "does not match"),
        # bug K's gradient norm is exactly 0 on every seed: measured or typed, the zero proves no run
        ("K", "GRAD_MAGNITUDE", lambda: after_step(lambda m, o: grad_norm(m))("K"), "every run of any code"),
    ],
)
def test_evidence_that_does_not_prove_the_stage_is_refused(bug, stage, evidence, words):
    ok, message = judge_evidence(Variant(bug), 0, stage, summarize(evidence()))
    assert not ok and words in message
    assert BUGS[bug].title not in message  # a refusal never names the planted bug


def test_a_refusal_for_a_wrong_stage_names_what_that_stage_needs_not_the_answer():
    ok, message = judge_evidence(Variant("G"), 0, "PARAMS_FROZEN", summarize(changes("G")))
    assert not ok and "parameter_report(model) lists the parameters" in message
    assert "PARAMS_NOT_UPDATED" not in message


def test_the_contract_covers_every_stage_and_renders_once():
    stages = {s.name for s in Stage} - {"OK"}
    assert stages <= set(PROOFS) and {b.stage for b in BUGS.values()} <= set(PROOFS)
    table = contract_markdown()
    for stage, proofs in PROOFS.items():
        assert f"| `{stage}` |" in table and all(p.shows in table for p in proofs)
