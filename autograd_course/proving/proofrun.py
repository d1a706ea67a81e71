"""Part 1's run: the learner's proof script on the given broken code; plain data out.

This file is self-contained on purpose: it imports only the standard library, torch, the
learner's toolkit (`helpers`) and what both parts' runs share (harness_core, whose source the grader
sends first), never the rest of the course. The grader sends its *source* into a
sandboxed kernel that cannot import the course (no catalogue, reference, proof or judge), runs the
answer there on the broken code of a hidden run (rendered by the grader, compiled here under a fresh
random file name) and writes what the answer set, as plain values: the stage's name, the evidence's
summary, what it printed, the error it raised and its line. The grader judges that in its own
process against its own run of the same broken code (contract.judge_evidence): nothing here decides
a grade, so nothing here must be trusted. The practice check summarizes evidence with the same
`summarize`.

An error counts as the broken code's only when it passed through the broken code's own functions
(`origin`: their code objects, taken before the answer runs), and it carries the values of the model
those functions held (`models_where_raised`), which tie it to this run's seed. Before and after the
answer, torch, the toolkit and json are compared with a snapshot, and an audit watch notes what the
answer reached for (harness_core.answer_run): both are reported, for the instructor (the sandbox
refuses the rest).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from types import CodeType
from typing import Any

import torch

import helpers
from autograd_course.harness_core import (
    answer_run,
    defined_codes,
    given_namespace,
    own_names,
    run_answer,
    watched_objects,
    write_record,
)
from helpers import (
    AutogradGraph,
    Diagnosis,
    ExpectedError,
    GradientReport,
    NonFiniteError,
    ParameterChanges,
    ParameterReport,
    Stage,
    StepReport,
    TensorInfo,
)
from helpers.gradients import GradClassification
from helpers.lineage import lineage
from helpers.parameters import value_norms

__all__ = [
    "RAISED_BY",
    "SUMMARIES",
    "answer_namespace",
    "models_where_raised",
    "no_doctor",
    "origin",
    "prove",
    "run_part1",
    "stage_name",
    "summarize",
    "warm_up",
]

_ASSERT_FINITE = helpers.assert_finite.__code__  # taken before any answer runs
RAISED_BY = ("broken code", "helpers")  # where an exception must come from to count as evidence

# Where the frames below the broken code's may run: torch's, the toolkit's and the standard library's
# own files, which an answer cannot write. A frame of the answer's own (an optimizer or model it hands
# the broken code, which raises a message it typed) makes the error the answer's.
_LIBRARIES = tuple(
    os.path.join(os.path.dirname(os.path.abspath(path)), "")
    for path in (torch.__file__, helpers.__file__, os.__file__)
)


def _library(code: CodeType) -> bool:
    return os.path.abspath(code.co_filename).startswith(_LIBRARIES)


def _frames(exc: BaseException):
    """The frames an exception passed through, outermost first."""
    tb = exc.__traceback__
    while tb is not None:
        yield tb.tb_frame
        tb = tb.tb_next


def origin(exc: BaseException, is_broken: Callable[[CodeType], bool]) -> str:
    """Where an exception was raised: "broken code" (through the broken code's own functions, and from
    there only through them and the libraries), "helpers", "elsewhere" or "never raised"."""
    if exc.__traceback__ is None:
        return "never raised"
    found, inside = "elsewhere", False
    for frame in _frames(exc):
        if is_broken(frame.f_code):
            inside = True
        elif inside and not _library(frame.f_code):
            return "elsewhere"  # raised by code the answer made, which the broken code called
        elif str(frame.f_globals.get("__name__", "")).split(".")[0] == "helpers":
            found = "helpers"
    return "broken code" if inside else found


def models_where_raised(exc: BaseException, is_broken: Callable[[CodeType], bool]) -> list[dict[str, float]]:
    """The value norms of each model the broken code held in the frames an exception passed through.

    An error's message is the same on every seed; the model the broken code was running when it raised
    is not. That ties the error to this run: an error raised by hand, or compiled under the broken
    code's file name, passes through no broken frame that holds this run's model."""
    found = []
    for frame in _frames(exc):
        if not is_broken(frame.f_code):
            continue
        for value in list(frame.f_locals.values()):
            if isinstance(value, torch.nn.Module) and (norms := value_norms(value)) and norms not in found:
                found.append(norms)
    return found


def _error_fields(exc: BaseException, is_broken: Callable[[CodeType], bool]) -> dict:
    return {
        "message": str(exc),
        "origin": origin(exc, is_broken),
        "models": models_where_raised(exc, is_broken),
    }


def _num(v: Any) -> float | None:
    return None if v is None else float(v)


def _grad_rows(report: Any, _is_broken: Callable) -> dict:
    norms = getattr(report, "value_norms", {})  # beside a zero gradient: its values tell this run's model
    return {
        "rows": [
            {
                "name": r.name,
                "status": r.status.name,
                "norm": _num(r.norm),
                "nan": r.nan,
                "inf": r.inf,
                "value_norm": _num(norms.get(r.name)),
            }
            for r in report.rows
        ]
    }


def _change_rows(changes: Any, _is_broken: Callable) -> dict:
    norms = getattr(changes, "value_norms", {})  # the values' norms tell this run from another seed's
    return {
        "rows": [
            {
                "name": r.name,
                "changed": r.changed,
                "max_delta": _num(r.max_delta),
                "norm": _num(norms.get(r.name)),
            }
            for r in changes.rows
        ]
    }


def _report_rows(report: Any, _is_broken: Callable) -> dict:
    norms = getattr(report, "value_norms", {})  # names and shapes are alike on every seed; norms are not
    return {
        "rows": [
            {
                "name": r.name,
                "shape": list(r.shape),
                "requires_grad": r.requires_grad,
                "norm": _num(norms.get(r.name)),
            }
            for r in report.rows
        ]
    }


def _asserted_lineage(exc: BaseException) -> dict | None:
    """The lineage of the tensor assert_finite raised on (found in its frame): None for an error that
    assert_finite did not raise."""
    for frame in _frames(exc):
        if frame.f_code is _ASSERT_FINITE:
            tensor = frame.f_locals.get("tensor")
            return lineage(tensor).as_data() if isinstance(tensor, torch.Tensor) else None
    return None


def _tensor_fields(info: Any, _is_broken: Callable) -> dict:
    return {
        "lineage": info.lineage.as_data() if getattr(info, "lineage", None) else None,
        "shape": list(info.shape),
        "requires_grad": info.requires_grad,
        "grad_fn": info.grad_fn,
        **{k: _num(getattr(info, k)) for k in ("min", "max", "mean")},
        "nan": info.nan,
        "inf": info.inf,
    }


def _step_fields(r: Any, is_broken: Callable) -> dict:
    return {
        "loss": _num(r.loss),
        "gradients": summarize(r.classification, is_broken),
        "changes": summarize(r.changes, is_broken),
    }


# (kind, the objects it reads, its summary's fields), in the order summarize tries them (a
# GradClassification is also a GradientReport). contract.py says what each kind proves.
SUMMARIES: tuple[tuple[str, tuple[type, ...], Callable[[Any, Callable], dict]], ...] = (
    (
        "Diagnosis",
        (Diagnosis,),
        lambda d, _: {"stage": d.stage.name, "step": d.step, "losses": [_num(v) for v in d.losses]},
    ),
    (
        "AutogradGraph",
        (AutogradGraph,),
        lambda g, _: {"empty": g.root is None, "leaves": sorted(n.label for n in g.leaves)},
    ),
    ("StepReport", (StepReport,), _step_fields),
    ("GradClassification", (GradClassification,), _grad_rows),
    ("GradientReport", (GradientReport,), _grad_rows),
    ("ParameterChanges", (ParameterChanges,), _change_rows),
    ("ParameterReport", (ParameterReport,), _report_rows),
    ("TensorInfo", (TensorInfo,), _tensor_fields),
    (
        "NonFiniteError",
        (NonFiniteError,),
        lambda e, b: {
            "nan": e.nan,
            "inf": e.inf,
            "sample": list(e.sample),
            "origin": origin(e, b),
            "lineage": _asserted_lineage(e),
        },
    ),
    ("error", (BaseException,), _error_fields),
    ("answer", (bool,), lambda v, _: {"value": bool(v)}),  # a checklist's answer: torch.is_grad_enabled()
    (
        "number",
        (int, float, torch.Tensor),
        lambda v, _: {"value": float(v.detach()) if isinstance(v, torch.Tensor) else float(v)},
    ),
)


def _is(types_: tuple[type, ...], evidence: Any) -> bool:
    if not isinstance(evidence, types_) or (isinstance(evidence, bool) and bool not in types_):
        return False
    return not isinstance(evidence, torch.Tensor) or evidence.numel() == 1


def summarize(evidence: Any, is_broken: Callable[[CodeType], bool]) -> dict:
    """Plain data (JSON-able) describing one evidence object from the helpers; is_broken says which
    code objects are the broken code's own (an error raised through them is the code's)."""
    if isinstance(evidence, (list, tuple)):
        return {"type": "list", "items": [summarize(e, is_broken) for e in evidence]}
    if isinstance(evidence, ExpectedError):  # what `with expect_error(...) as caught` caught
        caught = evidence.exception
        if caught is None:
            return {"type": "error", "message": "", "origin": "never raised", "models": []}
        return summarize(caught, is_broken)
    for name, types_, fields in SUMMARIES:
        if _is(types_, evidence):
            return {"type": name, **fields(evidence, is_broken)}
    return {"type": "unknown", "name": type(evidence).__name__}


def stage_name(stage: Any) -> str | None:
    """The member name of a helpers.Stage answer, or None for anything else."""
    return stage.name if isinstance(stage, Stage) else None


def _no_doctor(*_args: Any, **_kwargs: Any) -> None:
    raise RuntimeError("the grader's run has no doctor: prove the stage with the plain tools")


def no_doctor() -> None:
    """Take the doctor out of the toolkit itself (`import helpers` reaches it), before any answer runs."""
    for module in (helpers, helpers.doctor, helpers.doctor.diagnosis):
        module.diagnose = _no_doctor


def _watched_objects() -> tuple:
    """What part 2 watches too (harness_core.watched_objects), and json: it writes the record, so a patch
    an answer leaves in it would write a later run's (imported here, as an earlier answer may have rebound
    this module's own name `json`)."""
    import json as json_module

    return (*watched_objects(), json_module, json_module.encoder.JSONEncoder)


_WARMED: list[bool] = []  # whether the broken code ran once in this process, before any answer


def answer_namespace(code: str, filename: str, seed: int) -> dict[str, Any]:
    """The names an answer cell may use: the toolkit (no doctor), torch, the given code, the problem."""
    return given_namespace(code, filename, seed) | {"diagnose": _no_doctor}


def warm_up(code: str, filename: str) -> None:
    """Run the broken code once before the first answer, so torch's lazy set-up is not taken for an
    answer's change."""
    ns = answer_namespace(code, filename, 0)
    with torch.random.fork_rng(devices=[]), contextlib.suppress(Exception):
        model, optimizer = ns["broken_setup"](0, "cpu")
        summarize(helpers.gradient_report(model), lambda _: False)
        ns["broken_step"](model, optimizer, ns["inputs"], ns["targets"])


def prove(source: str, code: str, filename: str, seed: int, prelude: Any = ()) -> dict[str, Any]:
    """Run the answer on the given code and seed, after the earlier cells it needs (prelude: cell
    number and code): what it set, printed, raised, changed and reached. A SystemExit is the answer's
    error like any other; threads it leaves running are stopped and reported; names of this harness it
    replaced are reported as changed."""
    ns = answer_namespace(code, filename, seed)
    broken = defined_codes(ns, filename)  # before the answer runs: its own code is never among them
    ns["stage"] = ns["evidence"] = placeholder = ns["NotAttempted"]
    with answer_run(_LOADED, _watched_objects()) as did:  # the objects taken before the answer runs
        error = run_answer(source, ns, prelude)
    stage, evidence = ns.get("stage", placeholder), ns.get("evidence", placeholder)
    attempted = stage is not placeholder and evidence is not placeholder
    summary = summarize(evidence, broken.__contains__) if attempted and not did["changed"] else None
    return did | {
        "error": error,
        "not_attempted": not attempted,
        "stage": stage_name(stage) if attempted else None,
        "summary": summary,
    }


def _write_json(record: dict[str, Any], out: str, *, _with: tuple = (json.dump, open)) -> None:
    """Write a record as JSON with json.dump and open as they were when this module was made."""
    dump, opener = _with
    with opener(out, "w", encoding="utf-8") as f:
        dump(record, f)


def run_part1(
    source: str,
    code: str,
    filename: str,
    seed: int,
    out: str,
    prelude: Any = (),
    *,
    _write: tuple = (write_record, _write_json),
) -> None:
    """One hidden run of a part-1 answer: write prove's plain data to out (JSON), as every run ends
    (harness_core.write_record: threads the answer left stopped first, the kernel ended after writing if
    one cannot be). What writes the record was taken when this module was made (`_write`), before any
    answer ran in its kernel, so an answer that replaces this module's names cannot write this run's
    record or a later one's."""
    finish, write = _write
    if not _WARMED:
        warm_up(code, filename)
        _WARMED.append(True)
    with torch.random.fork_rng(devices=[]):
        result = prove(source, code, filename, seed, prelude)
    finish(result, out, write)


# This module's and the core's names as made, before any answer ran: every run reports a name an answer
# replaced, in that run or in an earlier one in the same kernel (a learner's answers share one).
_LOADED = own_names(globals())
