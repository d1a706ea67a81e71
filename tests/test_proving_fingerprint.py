"""Evidence that is the same on every seed (names, shapes, requires_grad; deltas of a layer that never
moves) counts only with the values' norms of the run it came from: a report of the hidden run's own
model matches the grader's trace, one from another seed, pickled, or built by hand matches nothing."""

from __future__ import annotations

import pickle

import pytest
import torch

import helpers
from autograd_course.proving.kinds import is_real, real_steps
from autograd_course.proving.proofrun import summarize
from autograd_instructor.challenge import Variant, compiled
from autograd_instructor.challenge.catalogue import build_broken
from autograd_instructor.challenge.contract import judge_evidence
from autograd_instructor.challenge.hidden import bug_shows, hidden_runs
from autograd_instructor.challenge.reference import trace_broken
from helpers import make_tiny_problem, parameter_changes, parameter_report, snapshot_parameters
from helpers.parameters import ParameterChanges, ParameterReport

STAGE = {"B": "PARAMS_FROZEN", "G": "PARAMS_NOT_UPDATED", "N": "PARAMS_NOT_UPDATED"}


def _run(bug: str, seed: int, steps: int = 0):
    code = build_broken(Variant(bug))
    model, optimizer = code["broken_setup"](seed, "cpu")
    inputs, targets = make_tiny_problem(seed)
    for _ in range(steps):
        code["broken_step"](model, optimizer, inputs, targets)
    return code, model, optimizer, inputs, targets


def _report(bug: str, seed: int, steps: int = 0) -> ParameterReport:
    return parameter_report(_run(bug, seed, steps)[1])


def _changes(bug: str, seed: int) -> ParameterChanges:
    code, model, optimizer, inputs, targets = _run(bug, seed)
    before = snapshot_parameters(model)
    code["broken_step"](model, optimizer, inputs, targets)
    return parameter_changes(model, before)


def _summary(evidence) -> dict:
    return summarize(evidence, lambda _: False)


def _hidden_seed(bug: str) -> int:
    """A seed the grader draws for a hidden run (never 0, the seed of the public default run)."""
    seed = hidden_runs("someone", "B", 1)[0][1]
    assert seed != 0
    return seed


def test_a_report_of_the_hidden_runs_own_model_is_real_before_and_after_steps():
    seed = _hidden_seed("B")
    trace = trace_broken(Variant("B"), seed)
    assert real_steps(_summary(_report("B", seed)), trace) == [0]
    assert 2 in real_steps(_summary(_report("B", seed, steps=3)), trace)  # after step 2, before step 3
    ok, message = judge_evidence(Variant("B"), seed, "PARAMS_FROZEN", _summary(_report("B", seed)))
    assert ok, message


@pytest.mark.parametrize(
    "forged",
    [
        lambda seed: _report("B", 0),
        lambda seed: pickle.loads(pickle.dumps(_report("B", 0))),
        lambda seed: ParameterReport(_report("B", seed).rows),  # the right rows, typed without values
        lambda seed: ParameterReport(
            _report("B", seed).rows, {n: v * 1.01 for n, v in _report("B", seed).value_norms.items()}
        ),
    ],
    ids=["seed 0", "seed 0 pickled", "built by hand", "norms guessed 1% off"],
)
def test_a_report_from_another_seed_or_by_hand_matches_nothing(forged):
    seed = _hidden_seed("B")
    summary = _summary(forged(seed))
    assert not is_real(summary, trace_broken(Variant("B"), seed))
    ok, message = judge_evidence(Variant("B"), seed, "PARAMS_FROZEN", summary)
    assert not ok and "does not match" in message


@pytest.mark.parametrize("bug", ["G", "N"])
def test_changes_where_nothing_moves_count_only_from_the_hidden_runs_own_model(bug):
    seed = _hidden_seed(bug)
    real = _changes(bug, seed)
    assert not any(real.changed.values())  # the deltas alone are the same on every seed
    assert judge_evidence(Variant(bug), seed, STAGE[bug], _summary(real))[0]
    for forged in (_changes(bug, 0), ParameterChanges(real.rows)):
        ok, message = judge_evidence(Variant(bug), seed, STAGE[bug], _summary(forged))
        assert not ok and "does not match" in message


def test_the_summary_carries_the_norms_and_none_where_a_report_has_none():
    report = _report("B", 5)
    rows = _summary(report)["rows"]
    assert [r["norm"] for r in rows] == [report.value_norms[r["name"]] for r in rows]
    assert {r["norm"] for r in _summary(ParameterReport(report.rows))["rows"]} == {None}
    assert {r["norm"] for r in _summary(ParameterChanges(_changes("G", 5).rows))["rows"]} == {None}


# Bug K (softmax over a one-output head): every gradient is exactly 0 on every seed, so the zeros alone
# prove no run; a gradient report keeps the values of the tensors beside its zeros.
def _k_report(seed: int):
    code, model, optimizer, inputs, targets = _run("K", seed)
    code["broken_step"](model, optimizer, inputs, targets)
    return helpers.gradient_report(model)


def _k_seed() -> int:
    return hidden_runs("k-learner", "M1", 1)[0][1]


def test_a_zero_gradient_report_of_the_hidden_runs_own_model_proves_bug_k():
    seed = _k_seed()
    report = _k_report(seed)
    assert all(r.norm == 0.0 for r in report.rows) and set(report.value_norms) == set(report.status)
    ok, message = judge_evidence(Variant("K"), seed, "GRAD_MAGNITUDE", summarize(report, lambda _: False))
    assert ok, message


@pytest.mark.parametrize(
    "forged",
    [
        lambda: summarize(pickle.loads(pickle.dumps(_k_report(0))), lambda _: False),  # the public run's
        lambda: {"type": "number", "value": 0.0},  # grad_norm(model), typed or measured
        lambda: {"type": "list", "items": [{"type": "number", "value": 0.0}] * 2},
    ],
)
def test_zeros_from_another_seed_or_typed_prove_nothing(forged):
    ok, message = judge_evidence(Variant("K"), _k_seed(), "GRAD_MAGNITUDE", forged())
    assert not ok, message
    assert "gradient_report" not in message  # the refusal says what the evidence lacks, not the answer


def test_a_report_without_zero_gradients_reads_no_values():
    _, model, _, inputs, _ = _run("A", 3)
    model(inputs).sum().backward()
    report = helpers.gradient_report(model)
    with helpers.count_host_syncs() as reads:
        assert report.value_norms == {}
    assert reads.count == 0


# An error's message is the same on every seed (bugs A and F: "does not require grad"; I and L: the
# in-place and freed-graph errors). It counts only when it passed through the broken code's own
# functions while they held the hidden run's model: the values of that model are the seed's.
ERROR_BUGS = {
    "A": "LOSS_NOT_IN_GRAPH",
    "F": "GRAD_MODE_DISABLED",
    "I": "BACKWARD_FAILED",
    "L": "BACKWARD_FAILED",
}


def _caught(run) -> BaseException:
    try:
        run()
    except RuntimeError as exc:
        return exc
    raise AssertionError("nothing was raised")


def _broken_error(bug: str, seed: int) -> BaseException:
    """The error the broken step raises on the run of this seed (bug L: on its second step)."""
    code, model, optimizer, inputs, targets = _run(bug, seed)

    def steps():
        for _ in range(2):
            code["broken_step"](model, optimizer, inputs, targets)

    return _caught(steps)


def _error_evidence(bug: str, exc: BaseException) -> dict:
    summary = summarize(exc, compiled.is_broken_code)
    if bug in ("A", "F"):  # the contract's list: the error and torch.is_grad_enabled() where it ran
        return {"type": "list", "items": [summary, {"type": "answer", "value": bug == "A"}]}
    return summary


def _error_seed(bug: str) -> int:
    return hidden_runs(f"error-learner-{bug}", "A", 1)[0][1]


@pytest.mark.parametrize("bug", list(ERROR_BUGS))
def test_the_error_of_the_hidden_runs_own_broken_step_proves_its_stage(bug):
    seed = _error_seed(bug)
    exc = _broken_error(bug, seed)
    summary = summarize(exc, compiled.is_broken_code)
    assert summary["origin"] == "broken code" and len(summary["models"]) == 1
    ok, message = judge_evidence(Variant(bug), seed, ERROR_BUGS[bug], _error_evidence(bug, exc))
    assert ok, message


def _by_hand(bug: str, seed: int) -> BaseException:
    return RuntimeError(str(_broken_error(bug, seed)))


def _compiled_as_broken(bug: str, seed: int) -> BaseException:
    """The right message raised by a function compiled under the broken code's file name, holding the
    hidden run's own model (what an answer can make without the bug)."""
    code, model, *_ = _run(bug, seed)
    message = str(_broken_error(bug, seed))
    ns: dict = {}
    source = f"def broken_step(model):\n    raise RuntimeError({message!r})\n"
    exec(compile(source, code["broken_step"].__code__.co_filename, "exec"), ns)
    return _caught(lambda: ns["broken_step"](model))


def _another_seed(bug: str, seed: int) -> BaseException:
    return _broken_error(bug, seed + 1)  # the broken code's own error, on another seed's model


@pytest.mark.parametrize("bug", list(ERROR_BUGS))
@pytest.mark.parametrize("forge", [_by_hand, _compiled_as_broken, _another_seed])
def test_the_same_message_from_anywhere_else_proves_nothing(bug, forge):
    seed = _error_seed(bug)
    exc = forge(bug, seed)
    assert str(exc) == str(_broken_error(bug, seed))  # the message alone is right
    ok, message = judge_evidence(Variant(bug), seed, ERROR_BUGS[bug], _error_evidence(bug, exc))
    assert not ok, message


_PROXY = """
class Proxy:
    def __init__(self, optimizer, message):
        self.optimizer, self.message = optimizer, message

    def __getattr__(self, name):
        raise RuntimeError(self.message)
"""


def _through_a_proxy(bug: str, seed: int) -> BaseException:
    """The genuine broken step on the hidden run's own model, handed an optimizer of the answer's that
    raises the right message when the step touches it."""
    code, model, optimizer, inputs, targets = _run(bug, seed)
    ns: dict = {}
    exec(compile(_PROXY, "<answer>", "exec"), ns)  # compiled as the grader's harness compiles an answer
    proxy = ns["Proxy"](optimizer, str(_broken_error(bug, seed)))
    return _caught(lambda: code["broken_step"](model, proxy, inputs, targets))


@pytest.mark.parametrize("bug", list(ERROR_BUGS))
def test_an_error_raised_by_the_answers_own_object_inside_the_broken_step_proves_nothing(bug):
    seed = _error_seed(bug)
    exc = _through_a_proxy(bug, seed)
    summary = summarize(exc, compiled.is_broken_code)
    assert summary["models"], "the broken step's frame held the run's model"
    assert summary["origin"] == "elsewhere"
    ok, message = judge_evidence(Variant(bug), seed, ERROR_BUGS[bug], _error_evidence(bug, exc))
    assert not ok, message


# An infinite or NaN loss is alike on every seed (bugs E and J): it counts only with what it was computed
# from (helpers/lineage.py), the same operations from leaves with the values of the hidden run's model.
def _nonfinite_seed(bug: str) -> int:
    return next(s for s in range(_error_seed("A"), _error_seed("A") + 50) if bug_shows(Variant(bug), s))


def _loss(bug: str, seed: int):
    code, model, _, inputs, targets = _run(bug, seed)
    return code["compute_loss"](model, inputs, targets), model


def _asserted(tensor) -> helpers.NonFiniteError:
    try:
        helpers.assert_finite("loss", tensor)
    except helpers.NonFiniteError as exc:
        return exc
    raise AssertionError("the tensor was finite")


def _nonfinite_ok(bug: str, seed: int, evidence) -> bool:
    summary = summarize(evidence, compiled.is_broken_code)
    return judge_evidence(Variant(bug), seed, "FORWARD_NON_FINITE", summary)[0]


@pytest.mark.parametrize("bug", ["E", "J"])
@pytest.mark.parametrize("report", [_asserted, lambda t: helpers.debug_tensor("loss", t)])
def test_the_hidden_runs_own_non_finite_loss_proves_its_stage(bug, report):
    seed = _nonfinite_seed(bug)
    loss, _ = _loss(bug, seed)
    assert not torch.isfinite(loss).all()
    assert _nonfinite_ok(bug, seed, report(loss))


def _typed(bug: str, seed: int):
    loss, _ = _loss(bug, seed)
    return torch.full_like(loss.detach(), float(loss.detach().flatten()[0]))  # the same values, typed


def _typed_leaf(bug: str, seed: int):
    return _typed(bug, seed).requires_grad_()


def _on_the_runs_model(bug: str, seed: int):
    """The run's own parameters, times the loss's value: a graph of the run, not the bug's."""
    loss, model = _loss(bug, seed)
    return sum(p.sum() for p in model.parameters()) * 0 + float(loss.detach().flatten()[0])


def _other_seed(bug: str, seed: int):
    return _loss(bug, next(s for s in range(seed + 1, seed + 50) if bug_shows(Variant(bug), s)))[0]


@pytest.mark.parametrize("bug", ["E", "J"])
@pytest.mark.parametrize("report", [_asserted, lambda t: helpers.debug_tensor("loss", t)])
@pytest.mark.parametrize("forge", [_typed, _typed_leaf, _on_the_runs_model, _other_seed])
def test_a_non_finite_loss_typed_or_from_elsewhere_proves_nothing(bug, report, forge):
    seed = _nonfinite_seed(bug)
    forged = forge(bug, seed)
    assert not torch.isfinite(forged).all()
    assert not _nonfinite_ok(bug, seed, report(forged))


@pytest.mark.parametrize("bug", ["E", "J"])
@pytest.mark.parametrize("report", [_asserted, lambda t: helpers.debug_tensor("loss", t)])
def test_a_non_finite_loss_computed_without_a_graph_is_refused_saying_why(bug, report):
    """The run's own loss under torch.no_grad() is alike a typed one (no lineage): refused, and the
    verdict says what to change, not that the code never produced it."""
    seed = _nonfinite_seed(bug)
    code, model, _, inputs, targets = _run(bug, seed)
    with torch.no_grad():
        loss = code["compute_loss"](model, inputs, targets)
    assert not torch.isfinite(loss).all()
    ok, message = judge_evidence(
        Variant(bug), seed, "FORWARD_NON_FINITE", summarize(report(loss), compiled.is_broken_code)
    )
    assert not ok and "has no graph" in message and "grad mode on" in message, message
    assert "does not match" not in message
