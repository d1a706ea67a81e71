"""The grader's hidden runs: a learner's answer source, run on broken code and seeds they never saw.

This module runs in a fresh kernel the grader starts (sandboxed), never in the learner's own. For
each part it takes the pruned answer source (answer_source.py), runs it on several hidden runs and
writes what it saw to files; the grader judges those files in its own process (grading/grade.py).

- Part 1: the answer cell is a proof script. It runs with the toolkit's names, the broken code of a
  hidden run (the learner's bug, in their own code shape and in another one) and a hidden seed; the
  `stage` and `evidence` it sets are summarized. The doctor is not there: `diagnose` refuses.
- Part 2 does not run here: its answer runs in a kernel that cannot import the course at all
  (fixrun.py, sent as source by grading/fixcells.py), and the grader replays what it returns.

Errors from the broken code count as evidence only when raised by code compiled for this run, under
a file name with a fresh random token (`evidence.origin`), so an answer cannot forge one. Before and
after each run the harness compares torch, the toolkit and the course with a snapshot: an answer that
changed them is flagged and not judged.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import secrets
import site
import sys
import tempfile
import threading
import traceback
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

import helpers
from autograd_course.challenge.catalogue import BUGS, build_broken, exercise
from autograd_course.challenge.contract import judge_evidence
from autograd_course.challenge.draw import variant_for
from autograd_course.challenge.evidence import stage_name, summarize
from autograd_course.challenge.variants import Variant, digest, shape_number
from autograd_course.challenge.verdict import NotAttempted
from autograd_course.execution.refusals import refused
from autograd_course.fixing.fixrun import PRINTED_LIMIT

__all__ = ["HIDDEN_RUNS", "bug_shows", "hidden_path", "hidden_runs", "remove_doctor", "run_hidden"]

HIDDEN_RUNS = 2  # hidden runs per part: each must pass
SEED_TRIES = 20  # seeds tried per hidden run for one where the bug shows
_WATCHED = (
    torch,
    torch.Tensor,
    torch.nn.Module,
    F,
    torch.autograd,
    torch.optim.Optimizer,
    torch.optim.Adam,
    torch.optim.AdamW,
    torch.optim.SGD,
    helpers,
    helpers.TinyNet,
)


@functools.lru_cache(maxsize=256)
def bug_shows(variant: Variant, seed: int) -> bool:
    """Does the reference proof prove the bug's stage on this run? (A seed where it does not, e.g. a
    loss that stays finite, is never a hidden run: a right proof must be able to pass.)"""
    ns = _namespace(variant, seed)
    with torch.random.fork_rng(devices=[]), contextlib.redirect_stdout(io.StringIO()):
        try:
            exec(compile(BUGS[variant.bug]._proof, "<reference proof>", "exec"), ns)
        except Exception:  # the proof cannot run here: the bug does not show as it should
            return False
    summary = summarize(ns.get("evidence"))
    return judge_evidence(variant, seed, stage_name(ns.get("stage")), summary)[0]


def hidden_runs(learner: str | None, exercise_id: str, part: int) -> list[tuple[Variant, int]]:
    """(variant, seed) of each hidden run: the learner's bug in their shape, then in another shape;
    part 1's seeds are ones where the bug shows (bug_shows), so a right proof always passes."""
    own = variant_for(learner, exercise_id)
    runs = []
    for k in range(HIDDEN_RUNS):
        shape = (
            own.shape if (k == 0 or part == 2) else shape_number(digest(str(learner), exercise_id, str(k)))
        )
        variant = Variant(own.bug, shape)
        for attempt in range(SEED_TRIES):
            draw = digest(str(learner), exercise_id, str(part), "hidden seed", str(k), str(attempt))
            seed = 1 + draw % 9_999
            if part == 2 or bug_shows(variant, seed):  # a right fix passes on any seed
                break
        runs.append((variant, seed))
    return runs


def hidden_path(out_dir: str | Path, exercise_id: str, part: int, k: int) -> Path:
    """Where hidden run k of one part writes what it saw."""
    return Path(out_dir) / f"{exercise_id}-part{part}-hidden{k}.{'json' if part == 1 else 'pt'}"


def _snapshot() -> dict[str, int]:
    """id of every attribute of the watched modules and classes (submodules imported lazily left out)."""
    return {
        f"{getattr(o, '__name__', o)}.{k}": id(v)
        for o in _WATCHED
        for k, v in list(vars(o).items())
        if not isinstance(v, types.ModuleType)
    }


def _changed(before: dict[str, int]) -> list[str]:
    """The watched attributes an answer replaced, added or deleted (at most five named)."""
    after = _snapshot()
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))[:5]


@functools.cache
def _warm_up() -> None:
    """Run the broken code and a fix once per process, so torch's lazy set-up is not taken for an
    answer's change."""

    with torch.random.fork_rng(devices=[]):
        code = build_broken(variant_for(None, "D"))
        model, optimizer = code["broken_setup"](0, "cpu")
        code["broken_step"](model, optimizer, *helpers.make_tiny_problem(0, device="cpu"))
        summarize(helpers.gradient_report(model))


def remove_doctor() -> None:
    """Take the doctor out of the toolkit itself (`import helpers` reaches it): in the grader's part-1
    kernel only, before any answer runs, so the snapshot of the toolkit is taken without it."""
    for module in (helpers, helpers.doctor, helpers.doctor.diagnosis):
        module.diagnose = _no_doctor


def _no_doctor(*_args: Any, **_kwargs: Any) -> None:
    raise RuntimeError("the grader's run has no doctor: prove the stage with the plain tools")


def _namespace(variant: Variant, seed: int) -> dict[str, Any]:
    """The names an answer cell may use: the toolkit (no doctor), torch, the broken code, the problem."""
    ns: dict[str, Any] = {name: getattr(helpers, name) for name in helpers.__all__}
    ns |= {"torch": torch, "F": F, "NotAttempted": NotAttempted, "diagnose": _no_doctor}
    code = build_broken(variant, filename=f"<broken code {secrets.token_hex(8)}>")
    ns |= {n: code[n] for n in ("broken_setup", "compute_loss", "broken_step")}
    inputs, targets = helpers.make_tiny_problem(seed, device="cpu")
    ns |= {"inputs": inputs, "targets": targets, "seed": seed, "device": "cpu", "__name__": "__answer__"}
    return ns


def _error_of(exc: BaseException) -> dict:
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<answer>"]
    first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
    name = type(exc).__name__
    return {
        "name": name,
        "message": first,
        "line": lines[-1] if lines else None,
        "refused": refused(name, first),
    }


class _Watch:
    """An audit hook noting what an answer reaches for beyond its own run: files elsewhere, the network,
    other processes. The sandbox refuses them; this tells the instructor, even when the answer catches
    the refusal itself."""

    def __init__(self) -> None:
        self.on, self.events, self.thread = False, [], threading.get_ident()
        places = (
            sys.prefix,
            sys.base_prefix,
            *site.getsitepackages(),
            *sys.path,
            "/usr",
            "/lib",
            "/proc",
            "/sys",
        )
        course = Path(__file__).resolve().parents[2]  # the grader's own course code, read by tracebacks
        self.readable = tuple(os.path.realpath(p) for p in (*places, course, "/dev", "/etc") if p)
        sys.addaudithook(self)

    def __call__(self, event: str, args: tuple) -> None:
        # only the thread running the answer: the kernel's own threads (its sockets) go on untouched
        if not self.on or threading.get_ident() != self.thread:
            return
        if event == "open" and isinstance(args[0], str) and not self._inside(args[0], args[1]):
            self.events.append(f"opened {args[0]}")
        elif event in ("socket.connect", "socket.getaddrinfo", "socket.bind"):
            self.events.append("used the network")
            raise PermissionError("the grader's run of an answer has no network")
        elif event in ("os.fork", "os.forkpty", "os.system", "subprocess.Popen", "os.posix_spawn", "os.exec"):
            self.events.append(f"started a process ({event})")
            raise PermissionError("the grader's run of an answer starts no process")

    def _inside(self, path: str, mode: str | None) -> bool:
        full = os.path.realpath(path)
        if full.startswith((os.getcwd(), os.path.realpath(tempfile.gettempdir()))):
            return True
        return not (mode and any(c in str(mode) for c in "wax+")) and full.startswith(self.readable)


@functools.cache
def _watch() -> _Watch:
    """The one audit hook, installed on first use: in the kernel that runs answers, never in a
    process that only imports this module (the grader's own, for HIDDEN_RUNS and hidden_path)."""
    return _Watch()


@contextmanager
def _watched() -> Iterator[list[str]]:
    """Run the block as the answer: its thread watched, torch and the toolkit compared before and after.
    Yields the list of what it changed, filled when the block ends."""
    watch, before, changed = _watch(), _snapshot(), []
    watch.on, watch.thread = True, threading.get_ident()
    try:
        yield changed
    finally:
        watch.on = False
    changed += _changed(before)


def _run_source(source: str, ns: dict[str, Any]) -> tuple[dict | None, list[str], str]:
    """Run the answer in ns: (the error it raised or None, what it changed in torch or the toolkit,
    what it printed)."""
    error, printed = None, io.StringIO()
    with _watched() as changed, contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        try:
            exec(compile(source, "<answer>", "exec"), ns)  # the learner's answer, in the grader's sandbox
        except Exception as exc:  # the raising-cell rule: judge the names set before the error
            error = _error_of(exc)
    return error, changed, printed.getvalue()[-PRINTED_LIMIT:]


def _reached() -> list[str]:
    """What the answer reached for since the last call (at most five, each once)."""
    events = _watch().events
    reached = list(dict.fromkeys(events))[:5]
    events.clear()
    return reached


def _part1(source: str, variant: Variant, seed: int) -> dict:
    ns = _namespace(variant, seed)
    error, changed, printed = _run_source(source, ns)
    stage, evidence = ns.get("stage", NotAttempted), ns.get("evidence", NotAttempted)
    attempted = stage is not NotAttempted and evidence is not NotAttempted
    return {
        "seed": seed,
        "variant": variant.to_json(),
        "error": error,
        "changed": changed,
        "reached": _reached(),
        "not_attempted": not attempted,
        "printed": printed,
        "stage": stage_name(stage) if attempted else None,
        "summary": summarize(evidence) if attempted and not changed else None,
    }


def run_hidden(exercise_id: str, learner: str | None, part: int, source: str, out_dir: str) -> None:
    """Run part 1's pruned answer source on every hidden run; write what each saw (part 2 runs in a
    kernel without the course: grading/fixcells.py)."""
    if part != 1:
        raise ValueError("run_hidden runs part 1; part 2 runs through fixrun.run_fix")
    exercise(exercise_id)
    _warm_up()
    for k, (variant, seed) in enumerate(hidden_runs(learner, exercise_id, part)):
        with torch.random.fork_rng(devices=[]):
            hidden_path(out_dir, exercise_id, part, k).write_text(json.dumps(_part1(source, variant, seed)))
