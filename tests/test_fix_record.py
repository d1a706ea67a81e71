"""Part 2's hidden-run file: a training written stacked (fixrun.packed) reads back as it was trained
(fixing/record.py), and a record that is not exactly what the harness writes is an incomplete trace
for the judge: never an exception, never a pass."""

from __future__ import annotations

import copy
import io
import math
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from solved import solved_for

from autograd_course.fixing.fixrun import FIX_STEPS, collect_fix_trace, packed
from autograd_course.fixing.record import MAX_NAMES, MAX_VALUES, read_fix_record, unpacked
from autograd_instructor.challenge.answer_source import answer_source
from autograd_instructor.challenge.hidden import HIDDEN_RUNS, hidden_path, hidden_runs
from autograd_instructor.challenge.notebooks import challenge_cells
from autograd_instructor.challenge.parts import judge_part2
from autograd_instructor.grading.fixcells import run_here
from autograd_instructor.grading.judging import judge_part
from helpers import TinyNet

INCOMPLETE = "the fix trace is incomplete"


def _saved(record: object) -> bytes:
    buffer = io.BytesIO()
    torch.save(record, buffer)
    return buffer.getvalue()


def _setup(seed: int, device: str) -> tuple:
    torch.manual_seed(seed)
    model = TinyNet().to(device)
    return model, torch.optim.SGD(model.parameters(), lr=0.03)


def _odd_step() -> Callable:
    """A step function whose step 2 leaves zero gradients, step 3 no gradient for the first parameter,
    step 5 NaN gradients (so every later weight, loss and gradient is NaN)."""
    calls = []

    def step(model, optimizer, inputs, targets):
        calls.append(1)
        optimizer.zero_grad()
        loss = F.mse_loss(model(inputs), targets)
        params = list(model.parameters())
        if len(calls) == 2:
            (loss * 0.0).backward()
        elif len(calls) == 3:
            loss.backward(inputs=params[1:])
        elif len(calls) == 5:
            (loss * float("nan")).backward()
        else:
            loss.backward()
        optimizer.step()
        return loss

    return step


def _same(a: object, b: object) -> bool:
    """Equal values, tensors by dtype, shape and value (NaN equal to NaN), floats with NaN equal."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return (
            type(a) is type(b)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and bool(torch.equal(a.isnan(), b.isnan()))
            and bool(torch.equal(a.nan_to_num(), b.nan_to_num()))
        )
    if isinstance(a, dict):
        return isinstance(b, dict) and set(a) == set(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return type(a) is type(b) and a == b


def test_a_training_reads_back_as_it_was_trained_missing_gradient_and_nan_included():
    trace = collect_fix_trace(_setup, _odd_step(), 3, "cpu")
    first = trace["names"][0]
    assert first not in trace["grads"][2] and all(first in g for k, g in enumerate(trace["grads"]) if k != 2)
    assert all(float(g.abs().sum()) == 0 for g in trace["grads"][1].values())
    assert math.isnan(trace["losses"][-1]) and not math.isnan(trace["losses"][0])
    on_disk = torch.load(io.BytesIO(_saved(packed(trace))), weights_only=True)
    assert on_disk["has_grad"][first].tolist() == [k != 2 for k in range(FIX_STEPS)]
    assert _same(unpacked(on_disk), trace)


def test_a_file_holds_a_few_stacked_tensors_per_training():
    on_disk = packed(collect_fix_trace(_setup, _odd_step(), 3, "cpu"))
    tensors = [t for key in ("params", "grads", "has_grad") for t in on_disk[key].values()]
    assert len(tensors) == 3 * len(on_disk["names"]) == 12
    assert all(t.shape[0] in (FIX_STEPS, FIX_STEPS + 1) for t in tensors)


def test_a_parameter_that_changes_shape_is_recorded_as_an_error():
    trace = collect_fix_trace(_setup, _odd_step(), 3, "cpu")
    name = trace["names"][0]
    trace["params"][7][name] = torch.zeros(2, 2)
    written = packed(trace)
    assert set(written) == {"error"} and f"{name} changed its shape or dtype" in written["error"]
    assert unpacked(written) == written


@pytest.mark.parametrize(
    "kept", [{"not_attempted": True}, {"error": "the training raised X", "patched": ["a.b"]}]
)
def test_what_is_not_a_training_is_kept_as_it_is(kept):
    assert packed(kept) == kept
    assert unpacked(torch.load(io.BytesIO(_saved(packed(kept))), weights_only=True)) == kept


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> tuple[Path, dict, tuple]:
    """A right answer's hidden runs of exercise A, run as the harness runs them in the grader's kernel:
    the folder, hidden run 0's record as its file holds it, and that run's (variant, seed)."""
    folder = tmp_path_factory.mktemp("record")
    nb = solved_for(None, "A")
    source = next(
        nb.cells[i].source for i, m in challenge_cells(nb) if m["role"] == "answer" and m["part"] == 2
    )
    run_here("A", None, answer_source(source, 2), folder)
    raw = torch.load(hidden_path(folder, "A", 2, 0), weights_only=True)
    return folder, raw, hidden_runs(None, "A", 2)[0]


def _first(record: dict) -> str:
    return record["names"][0]


def _drop(key: str) -> Callable[[dict], None]:
    return lambda r: r.pop(key)


def _huge(r: dict) -> None:
    r["params"][_first(r)] = torch.zeros(1).expand(FIX_STEPS + 1, 10**9)


def _old_form(r: dict) -> None:
    """The form the harness wrote before: a dict of tensors per step, losses and lrs as lists."""
    nested = unpacked(copy.deepcopy(r))
    r.clear()
    r.update(nested)


def _set(key: str, value: Callable[[dict], object]) -> Callable[[dict], None]:
    def change(r: dict) -> None:
        r[key] = value(r)

    return change


def _set_name(key: str, value: Callable[[torch.Tensor], object]) -> Callable[[dict], None]:
    def change(r: dict) -> None:
        r[key][_first(r)] = value(r[key][_first(r)])

    return change


# Each way a recorded training can be malformed: (the change, what unpacked says of it).
MALFORMED = {
    "one snapshot more": (
        _set_name("params", lambda t: torch.cat([t, t[:1]])),
        "is not 41 floating-point snapshots",
    ),
    "one gradient step more": (_set_name("grads", lambda t: torch.cat([t, t[:1]])), "has shape (41, "),
    "one mask step fewer": (_set_name("has_grad", lambda t: t[1:]), "has shape (39,)"),
    "one loss more": (
        _set("losses", lambda r: torch.cat([r["losses"], r["losses"][:1]])),
        "losses has shape (41,)",
    ),
    "one lr fewer": (_set("lrs", lambda r: r["lrs"][1:]), "lrs has shape (40,)"),
    "gradients of another shape": (_set_name("grads", lambda t: t.reshape(FIX_STEPS, -1)), "not (40, "),
    "a scalar for the snapshots": (
        _set_name("params", lambda t: t.sum()),
        "is not 41 floating-point snapshots",
    ),
    "float32 losses": (_set("losses", lambda r: r["losses"].float()), "torch.float32, not torch.float64"),
    "an integer mask": (_set_name("has_grad", lambda t: t.to(torch.uint8)), "torch.uint8, not torch.bool"),
    "float64 gradients of float32 weights": (
        _set_name("grads", lambda t: t.double()),
        "torch.float64, not torch.float32",
    ),
    "integer weights": (_set_name("params", lambda t: t.long()), "floating-point"),
    "complex weights": (_set_name("params", lambda t: t.to(torch.complex64)), "floating-point"),
    "no losses": (_drop("losses"), "missing fields ['losses']"),
    "no mask": (_drop("has_grad"), "missing fields ['has_grad']"),
    "no seed": (_drop("seed"), "missing fields ['seed']"),
    "a name without snapshots": (
        lambda r: r["params"].pop(_first(r)),
        "params does not hold exactly the recorded names",
    ),
    "an unrecorded name": (
        lambda r: r["names"].append("extra.weight"),
        "params does not hold exactly the recorded names",
    ),
    "a repeated name": (lambda r: r["names"].append(_first(r)), "different strings"),
    "a name that is not a string": (
        _set("names", lambda r: [*r["names"][:-1], 3]),
        "names is not a list of strings",
    ),
    "too many names": (_set("names", lambda r: [f"n{k}" for k in range(MAX_NAMES + 1)]), "at most 64"),
    "an extra field": (_set("extra", lambda r: 1), "unexpected fields ['extra']"),
    "a float seed": (_set("seed", lambda r: 0.5), "seed is not an int"),
    "losses as a list": (_set("losses", lambda r: r["losses"].tolist()), "losses is not a plain tensor"),
    "snapshots as a list": (_set_name("params", lambda t: list(t.unbind(0))), "is not a plain tensor"),
    "a mask that is None": (_set_name("has_grad", lambda t: None), "is not a plain tensor"),
    "a Parameter for the snapshots": (_set_name("params", torch.nn.Parameter), "is not a plain tensor"),
    "snapshots on the meta device": (_set_name("params", lambda t: t.to("meta")), "dense CPU tensor"),
    "sparse gradients": (_set_name("grads", lambda t: t.to_sparse()), "dense CPU tensor"),
    "transposed gradients": (
        _set_name("grads", lambda t: t.transpose(0, -1).contiguous().transpose(0, -1)),
        "contiguous",
    ),
    "a huge tensor of one stored value": (_huge, "more than"),
    "patched as a string": (
        _set("patched", lambda r: "torch.Tensor.add"),
        "patched is not a list of strings",
    ),
    "the old form, a dict per step": (_old_form, "missing fields ['has_grad']"),
}


def _malformed(raw: dict, change: Callable[[dict], None]) -> dict:
    training = copy.deepcopy(raw["fix"])
    change(training)
    return torch.load(io.BytesIO(_saved(training)), weights_only=True)


@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_malformed_training_is_an_incomplete_trace_never_an_exception_or_a_pass(written, name):
    _, raw, (variant, seed) = written
    change, why = MALFORMED[name]
    read = unpacked(_malformed(raw, change))
    assert list(read) == ["incomplete"] and why in read["incomplete"], read
    verdict, judged = judge_part2("A", variant, read, seed, unpacked(raw["given"]))
    assert verdict.status == "failed" and judged.message == INCOMPLETE, verdict.message
    assert set(judged.status.values()) == {"not_run"}


def test_the_right_answers_record_passes_as_the_control_of_the_malformed_ones(written):
    folder, raw, (variant, seed) = written
    verdict, _ = judge_part2("A", variant, unpacked(raw["fix"]), seed, unpacked(raw["given"]))
    assert verdict.status == "passed", verdict.message
    judged = judge_part(folder, "A", 2, answer_source("def fixed_step(): ...", 2), None)
    assert judged.verdict.status == "passed" and not judged.problem, judged


@pytest.mark.parametrize("given", [None, "the old form", "no snapshots"])
def test_a_malformed_given_training_fails_the_part(written, given):
    """(Exercise A's given code raises; a training where its record should be is malformed too.)"""
    _, raw, (variant, seed) = written
    assert set(raw["given"]) == {"error"}
    record = copy.deepcopy(raw["fix"])
    if given == "the old form":
        record = unpacked(record)
    elif given == "no snapshots":
        record.pop("params")
    read = unpacked(None if given is None else torch.load(io.BytesIO(_saved(record)), weights_only=True))
    assert list(read) == ["incomplete"]
    verdict, _ = judge_part2("A", variant, unpacked(raw["fix"]), seed, read)
    assert verdict.status == "failed" and "given code" in verdict.message, verdict.message


@pytest.mark.parametrize("name", ["the old form, a dict per step", "a huge tensor of one stored value"])
def test_the_grader_judges_a_malformed_file_incomplete(tmp_path, written, name):
    folder, _, _ = written
    for k in range(HIDDEN_RUNS):
        raw = torch.load(hidden_path(folder, "A", 2, k), weights_only=True)
        hidden_path(tmp_path, "A", 2, k).write_bytes(
            _saved(raw | {"fix": _malformed(raw, MALFORMED[name][0])})
        )
    judged = judge_part(tmp_path, "A", 2, answer_source("def fixed_step(): ...", 2), None)
    assert judged.verdict.status == "failed" and INCOMPLETE in judged.verdict.message, judged


# Not a training, not exactly what the harness writes for an error or an untouched answer either.
ODD = [{"not_attempted": torch.ones(3)}, {"not_attempted": 1}, {"error": 3}, {"error": "x", "params": 1}]
ODD += [{1: 2}]


@pytest.mark.parametrize("training", ODD)
def test_a_malformed_error_or_not_attempted_is_incomplete(training):
    assert list(unpacked(torch.load(io.BytesIO(_saved(training)), weights_only=True))) == ["incomplete"]


@pytest.mark.parametrize("record", [None, [1, 2], torch.zeros(3), {"fix": 3}])
def test_a_file_that_is_not_a_record_reads_as_incomplete_trainings(record):
    read = read_fix_record(_saved(record))
    assert list(read["fix"]) == ["incomplete"] and list(read["given"]) == ["incomplete"]


def test_the_value_limit_holds_a_tinynet_training_many_times_over(written):
    _, raw, _ = written
    values = sum(t.numel() for key in ("params", "grads") for t in raw["fix"][key].values())
    assert values * 100 < MAX_VALUES


def _plain_step(model, optimizer, inputs, targets):
    optimizer.zero_grad()
    loss = F.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    return loss


def test_the_instructors_trail_reads_the_learners_training_from_the_record():
    from autograd_instructor.grading.trail import _measures

    fix = packed(collect_fix_trace(_setup, _plain_step, 3, "cpu"))
    given = packed(collect_fix_trace(_setup, _plain_step, 3, "cpu"))
    record = read_fix_record(_saved({"fix": fix, "given": given, "raised": None, "ran": ["fixed_step"]}))
    measured = _measures(record)
    losses = record["fix"]["losses"]
    assert measured["loss"] == f"loss {losses[0]:.4g} -> {losses[-1]:.4g} in {FIX_STEPS} steps"
    assert measured["moved"] == "every parameter changed"
    raised = {"name": "NameError", "line": 2, "message": "name 'x' is not defined"}
    failed = read_fix_record(_saved({"fix": {"not_attempted": True}, "given": given, "raised": raised}))
    assert "raised NameError on line 2" in _measures(failed)["error"]
    assert _measures(read_fix_record(_saved({"fix": {"not_attempted": True}})))["error"] == "not attempted"
