"""Grading submitted notebooks: the learner's answers, read as source, run by the grader on hidden inputs.

Threat model. A submission is untrusted, and so is everything its own kernel computed: outputs,
objects, traces, anything the notebook did to torch or to the course. The grader never runs the
learner's notebook. It reads each part's answer cell (answer_source.py: pruned of code that never
runs, screened for code that reaches into torch, the toolkit or Python itself), then runs that
source in a fresh kernel of its own, inside the sandbox (autograd_course.execution.sandbox:
bubblewrap, no network, read-only system, its own scratch folder, memory/CPU/process limits), on
hidden runs the learner never saw (challenge/hidden.py: their bug in another code shape, unseen
seeds; no doctor). That kernel writes what it saw to the scratch folder; verdicts are computed in the
grader's own process from those files alone (JSON, and tensors loaded with
`torch.load(weights_only=True)`, each file size-capped), against the learner's own variant
(judging.py). What this does not defend against: an answer that computes a real proof or a real
repair on inputs it has never seen (it has then done the exercise), or one copied from a learner
with the same bug (the draw makes neighbours' bugs differ in the mystery rounds).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

import nbformat
from tqdm import tqdm

from autograd_course.checks.usage import attempts_per_part, usage_records
from autograd_course.execution.kernel import Execution, KernelSpec, execute_cells
from autograd_course.execution.refusals import refused as _refused
from autograd_course.execution.sandbox import Sandbox, course_import_path
from autograd_course.exercises import EXERCISES
from autograd_course.fixing.fixcheck import CHECKS
from autograd_course.learner import learner_for
from autograd_course.modes import GRADED, PRACTICE, mode_of
from autograd_course.protocol import LEARNER_ENV
from autograd_instructor.challenge.answer_source import AnswerSource, answer_source
from autograd_instructor.challenge.draw import variant_for
from autograd_instructor.challenge.hidden import hidden_runs
from autograd_instructor.challenge.notebooks import challenge_cells
from autograd_instructor.challenge.secret import graded_key
from autograd_instructor.grading.copies import answer_digest, flag_copies
from autograd_instructor.grading.fixcells import fix_cells
from autograd_instructor.grading.hangs import stopped_in
from autograd_instructor.grading.judging import judge_part
from autograd_instructor.grading.proofcells import proof_cells
from autograd_instructor.grading.redact import Hidden
from autograd_instructor.grading.trail import add_trails, executed_with_trails

__all__ = [
    "STATUSES",
    "Record",
    "Submission",
    "answer_sources",
    "grade_folder",
    "grade_notebook",
    "inspect_submission",
    "judge_hidden",
    "judge_notebook",
    "ordinary_cells",
    "parts_of",
]

log = logging.getLogger("autograd_instructor.grading")
STATUSES = ("passed", "failed", "not_attempted", "error", "timeout", "missing")
NEEDS_SECRET = (
    "a graded notebook: its variant and hidden seeds are drawn with the release's secret; grade it "
    "with --secret FILE (the file `release --graded` wrote)"
)


@dataclass
class Record:
    """One row of results.json: a submission's verdict on one part of one exercise."""

    submission: str
    exercise: str
    part: int | None
    status: str
    message: str
    student: str = ""
    checks: list[list[Any]] = field(default_factory=list)
    hints: int = 0
    solution_viewed: bool = False
    attempts: int = 0  # check() calls the submitted notebook's saved outputs record for this part
    points: float = 0.0
    max_points: float = 0.0
    override: dict = field(default_factory=dict)  # the instructor's points and comment (overrides.py)
    note: str = ""  # for the instructor: e.g. the notebook's stamped learner differs from its folder
    flags: list[str] = field(default_factory=list)  # for the instructor: what the answer tried, dropped code
    mode: str = PRACTICE  # the mode the notebook was made in (autograd_course/modes.py)
    trail: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Record({self.submission}, {self.exercise} part {self.part}: {self.status})"


@dataclass
class Submission:
    """One notebook to grade: whose it is, its label in the results, the file, the learner's variant key."""

    student: str
    name: str
    path: Path
    problem: str = ""  # set when the submission cannot even be read (e.g. a refused archive)
    learner: str | None = None  # whose variant to grade against (None: the default variant)
    secret: str | None = field(default=None, repr=False)  # the graded release's (challenge/secret.py)

    def __repr__(self) -> str:
        return f"Submission({self.student}: {self.name})"


def inspect_submission(path: Path) -> tuple[object | None, str]:
    """(notebook, "") when the file is a gradable notebook, else (None, the reason it is not)."""
    where = path.name
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return None, f"{where}: cannot read the file: {exc.strerror}"
    if not raw.strip():
        return None, f"{where}: empty file, not a notebook"
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return None, f"{where}: not a notebook: not UTF-8 text"
    except json.JSONDecodeError as exc:
        return (
            None,
            f"{where}: not a notebook: broken JSON at line {exc.lineno}, column {exc.colno} ({exc.msg})",
        )
    if not isinstance(data, dict) or "cells" not in data:
        return None, f"{where}: not a notebook: the JSON has no cells"
    try:
        nb = nbformat.reads(json.dumps(data), as_version=4)
        nbformat.validate(nb)
    except Exception as exc:
        return None, f"{where}: not a valid notebook: {str(exc).splitlines()[0][:160]}"
    if not any(c.cell_type == "code" and c.source.strip() for c in nb.cells):
        return None, f"{where}: empty notebook: no code cells"
    return nb, ""


def parts_of(nb) -> list[tuple[str, int]]:
    """The (exercise, part) pairs whose cells the notebook holds, found by cell metadata."""
    found = {
        (m["exercise"], m["part"])
        for _, m in challenge_cells(nb)
        if m["exercise"] in EXERCISES and m.get("part") in (1, 2)
    }
    return sorted(found)


def answer_sources(nb) -> dict[tuple[str, int], AnswerSource]:
    """{(exercise, part): the answer cell's source, pruned and screened} of every answer cell."""
    found: dict[tuple[str, int], AnswerSource] = {}
    tagged = challenge_cells(nb)
    for i, m in tagged:
        key = (m["exercise"], m.get("part"))
        if m.get("role") == "answer" and key[1] in (1, 2) and key not in found:
            found[key] = answer_source(nb.cells[i].source, key[1], i + 1, ordinary_cells(nb, i, tagged))
    return found


def ordinary_cells(nb, before: int, tagged: list[tuple[int, dict]]) -> list[tuple[int, str]]:
    """(number, source) of the code cells before a cell that are neither the challenge's (answers,
    checks) nor the setup and parameters cells: what a learner's answer may build on."""
    skip = {i for i, _ in tagged}
    return [
        (i + 1, cell.source)
        for i, cell in enumerate(nb.cells[:before])
        if cell.cell_type == "code"
        and i not in skip
        and not {"setup", "parameters"} & set(cell.get("metadata", {}).get("tags", []))
    ]


def judge_notebook(
    sources: dict[tuple[str, int], AnswerSource], learner: str | None, export_dir: Path, part: int = 1
):
    """The notebook the grader runs for one part number, in a kernel that cannot import the course:
    each part's harness and broken code are sent as text (proofcells.py, fixcells.py)."""
    cells = (
        fix_cells(sources, learner, export_dir) if part == 2 else proof_cells(sources, learner, export_dir)
    )
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def part_sandbox(sandbox: Sandbox | None, part: int) -> Sandbox | None:
    """The kernels that run answers (either part) see the toolkit and never the course package."""
    return replace(sandbox, course=False) if sandbox is not None else sandbox


def kernel_env(learner: str | None, scratch: Path, confined: bool) -> dict[str, str]:
    """The kernel's environment: the learner (for the variant), no secrets of the grader when confined."""
    keep = ("PATH", "LANG", "LC_ALL", "TZ") if confined else tuple(os.environ)
    env = {k: os.environ[k] for k in keep if k in os.environ and k != LEARNER_ENV}
    if learner:
        env[LEARNER_ENV] = learner
    if confined:  # the export cell must run the grader's own course code, not another install's
        env["PYTHONPATH"] = course_import_path()
    env |= {
        "PYTHONDONTWRITEBYTECODE": "1",
        "HOME": str(scratch / "home"),
        "MPLBACKEND": "agg",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    return env


def _refusal(execution, nb) -> str:
    """'' or why the sandbox (or a limit) stopped a learner's cell, naming the cell and line."""
    for err in execution.errors:
        what = _refused(err.name, err.message)
        if what:
            return f"{err.where()}: the notebook {what} ({err.name}: {err.message[:120]})"
    return ""


def _prepare(sub: Submission) -> tuple[Any, list[tuple[str, int]], str]:
    """(notebook, its (exercise, part) pairs, "") when the submission can be graded, else (None, [], why)."""
    if sub.problem:
        return None, [], sub.problem
    nb, reason = inspect_submission(sub.path)
    if nb is None:
        return None, [], reason
    pairs = parts_of(nb)
    if not pairs:
        return None, [], f"{sub.path.name}: no challenge cells found (cell metadata 'autograd_course')"
    return nb, pairs, ""


def _run(sources, sub: Submission, scratch: Path, budget: float, sandbox: Sandbox | None, part: int):
    """Run one part's answers on hidden runs in a fresh kernel of the grader's; the learner's never runs."""
    export_dir = scratch / "export"
    export_dir.mkdir(parents=True, exist_ok=True)
    nb = judge_notebook(sources, sub.learner, export_dir, part)
    return _run_notebook(nb, sub, scratch, budget, part_sandbox(sandbox, part))


def _run_notebook(nb, sub: Submission, scratch: Path, budget: float, sandbox: Sandbox | None):
    """(execution, the notebook, its export folder) of the grader's notebook, in the sandbox; a
    notebook with nothing to run starts no kernel (execution None)."""
    for folder in (scratch / "export", scratch / "cwd", scratch / "home"):
        folder.mkdir(parents=True, exist_ok=True)
    if not nb.cells:
        return None, nb, scratch / "export"
    confined = sandbox is not None and sandbox.confined
    spec = KernelSpec(
        cwd=scratch / "cwd",
        env=kernel_env(sub.learner, scratch, confined),
        sandbox=sandbox,
        scratch=scratch,
    )
    execution = execute_cells(
        nb, spec, budget, stop_on_error=lambda ename, evalue: bool(_refused(ename, evalue))
    )
    return execution, nb, scratch / "export"


def _judge(execution, nb, pairs, sources, sub: Submission, export_dir: Path) -> list[Record]:
    """The records of one submission: the run's failure, or each part judged from its hidden runs."""
    name = sub.name
    if execution is None:
        execution = Execution("passed")
    if execution.status in ("timeout", "error"):  # the kernel stopped: say where, when in an earlier cell
        stopped = []
        for ex, p in pairs:
            why = execution.message + stopped_in(export_dir, ex, p, sources.get((ex, p)))
            stopped.append(Record(name, ex, p, execution.status, why, trail=_stopped(p, why)))
        return _redacted(stopped, sub.learner)
    if refused := _refusal(execution, nb):
        stopped = [Record(name, ex, p, "error", refused, trail=_stopped(p, refused)) for ex, p in pairs]
        return _redacted(stopped, sub.learner)
    # In this job's thread, beside the other jobs: the sections that seed torch's global RNG take
    # their turns inside it (autograd_course/global_rng.py).
    records = [
        judge_hidden(name, export_dir, ex, part, sources.get((ex, part)), sub.learner) for ex, part in pairs
    ]
    add_trails(records, nb, export_dir, sub.learner)
    if execution.errors:  # the grader's own cell failed: say how, for the instructor and for us
        err = execution.errors[0]
        for r in records:
            if r.status == "error" and "stopped early" in r.message:
                r.message += f" ({err.name}: {_hidden(sub.learner, r).answers(err.message[:200])})"
    return records


def _hidden(learner: str | None, record: Record) -> Hidden:
    """The values of a record's part that its learner must not read (redact.py)."""
    if record.exercise not in EXERCISES or record.part not in (1, 2):
        return Hidden.of(learner, [])
    return Hidden.of(learner, [seed for _, seed in hidden_runs(learner, record.exercise, record.part)])


def _redacted(records: list[Record], learner: str | None) -> list[Record]:
    """The records of a run that stopped (an error the kernel reported, a refusal, a timeout: the
    answer's words may be in them), each message without the hidden values of its part."""
    for r in records:
        r.message = _hidden(learner, r).answers(r.message)
    return records


def _stopped(part: int, why: str) -> dict:
    """The trail of a part whose run stopped before it returned anything: no check ran."""
    names = CHECKS if part == 2 else ("evidence",)
    checks = [{"name": n, "status": "not_run", "measured": why, "expected": ""} for n in names]
    return {"ran": [f"part {part}'s hidden runs (stopped)"], "printed": "", "returned": why, "checks": checks}


class _Prepared(NamedTuple):
    """A submission read, checked and with its answer cells found: what grading it needs."""

    sub: Submission  # with the learner id resolved
    nb: Any
    pairs: list
    note: str
    sources: dict


def _prepared(sub: Submission) -> _Prepared | Record:
    """The submission prepared for grading, or the error record of one that cannot be."""
    nb, pairs, why = _prepare(sub)
    if nb is None:
        return Record(sub.name, "-", None, "error", why, sub.student)
    learner, note = learner_for(nb, sub.learner)
    if mode_of(nb) == GRADED and learner is not None:  # drawn by the release's secret and the id
        if not sub.secret:
            return Record(sub.name, "-", None, "error", NEEDS_SECRET, sub.student, mode=GRADED)
        learner = graded_key(sub.secret, learner)
    return _Prepared(replace(sub, learner=learner), nb, pairs, note, answer_sources(nb))


def _executed(cells: list, path: Path | None) -> None:
    """Write the cells the grader ran for one submission (with their outputs), for the instructor."""
    if path is None:
        return
    nb = judge_notebook({}, None, Path())
    nb.cells = cells
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def _grade_prepared(
    item: _Prepared, scratch: Path, executed: Path | None, budget: float, sandbox: Sandbox | None
) -> list[Record]:
    """Run each part of one prepared submission in a fresh kernel of its own, then judge its exports
    with trusted code: a hang or crash in one part is that part's timeout or error only."""
    records, cells = [], []
    for part in (1, 2):
        pairs = [p for p in item.pairs if p[1] == part]
        if not pairs:
            continue
        execution, judged, export_dir = _run(
            item.sources, item.sub, scratch / f"part{part}", budget, sandbox, part
        )
        judged_records = _judge(execution, judged, pairs, item.sources, item.sub, export_dir)
        cells += executed_with_trails(judged, judged_records, export_dir).cells
        records += judged_records
    _executed(cells, executed)
    return annotate(records, item.nb, item.sub, item.note)


def grade_notebook(
    sub: Submission, scratch: Path, executed: Path | None, budget: float, sandbox: Sandbox | None = None
) -> list[Record]:
    """Execute one submission in a fresh kernel, then judge its exports with trusted code."""
    item = _prepared(sub)
    if isinstance(item, Record):
        return [item]
    return _grade_prepared(item, scratch, executed, budget, sandbox)


def annotate(records: list[Record], nb, sub: Submission, note: str) -> list[Record]:
    """Add what the submitted notebook itself says: hints and solutions used, checks run, its mode."""
    usage, attempts, mode = usage_of(nb), attempts_per_part(nb), mode_of(nb)
    for r in records:
        r.student, r.note = sub.student, note
        used = [u for u in usage if u[0] == r.exercise and u[1] == r.part]
        r.hints = max((u[3] for u in used if u[2] == "hint"), default=0)
        r.solution_viewed = any(u[2] == "solution" for u in used)
        r.attempts = attempts.get((r.exercise, r.part), 0) if r.part else 0
        r.mode = mode
    return records


# One kernel per learner and part: starting a kernel and importing torch is most of what grading a
# notebook costs, so a learner's answers to one part run together in one fresh (sandboxed) kernel,
# each writing to its own folder. When that kernel times out, dies or is refused something, each
# notebook's part is graded again in a kernel of its own, so one answer never costs another's.
def _group_part(
    ready: list[_Prepared], part: int, scratch: Path, budget: float, sandbox: Sandbox | None
) -> tuple[list[list[Record]], list[list]] | None:
    """Each notebook's records and cells for one part, from one shared kernel; None when it failed."""
    exports = [scratch / f"n{k}" / "export" for k in range(len(ready))]
    group, owner = judge_notebook({}, None, scratch), []
    for i, (item, export) in enumerate(zip(ready, exports)):
        export.mkdir(parents=True)
        cells = judge_notebook(item.sources, item.sub.learner, export, part).cells
        head = 0 if not group.cells else 1  # the first notebook's set-up cell serves them all
        group.cells += cells[head:]
        owner += [-1 if (j == 0 and head == 0) else i for j in range(len(cells) - head)]
    execution, _, _ = _run_notebook(
        group, ready[0].sub, scratch, budget * len(ready), part_sandbox(sandbox, part)
    )
    if execution is not None and (execution.status in ("timeout", "error") or _refusal(execution, group)):
        return None
    records, cells = [], []
    for i, (item, export) in enumerate(zip(ready, exports)):
        pairs = [p for p in item.pairs if p[1] == part]
        records.append(_judge(execution, group, pairs, item.sources, item.sub, export))
        executed_with_trails(group, records[-1], export)  # adds each part's trail to the cells it ran
        cells.append([c for c, o in zip(group.cells, owner, strict=True) if o in (-1, i)])
    return records, cells


def grade_learner(
    subs: list[Submission], scratch: Path, executed_dir: Path | None, budget: float, sandbox: Sandbox | None
) -> list[Record]:
    """The records of one learner's notebooks, judged from one shared kernel per part's hidden runs."""
    records: list[Record] = []
    ready: list[_Prepared] = []
    for sub in subs:
        item = _prepared(sub)
        if isinstance(item, Record):
            records.append(item)
        else:
            ready.append(item)
    if len(ready) < 2:
        for k, item in enumerate(ready):
            executed = executed_dir / item.sub.name if executed_dir is not None else None
            records += _grade_prepared(item, scratch / f"alone{k}", executed, budget, sandbox)
        return records
    mine: list[list[Record]] = [[] for _ in ready]
    cells: list[list] = [[] for _ in ready]
    for part in (1, 2):
        grouped = _group_part(ready, part, scratch / f"group{part}", budget, sandbox)
        for k, item in enumerate(ready):
            if grouped is not None:
                mine[k] += grouped[0][k]
                cells[k] += grouped[1][k]
                continue
            alone = scratch / f"alone{k}-part{part}"
            pairs = [p for p in item.pairs if p[1] == part]
            execution, judged, export_dir = _run(item.sources, item.sub, alone, budget, sandbox, part)
            judged_records = _judge(execution, judged, pairs, item.sources, item.sub, export_dir)
            mine[k] += judged_records
            cells[k] += executed_with_trails(judged, judged_records, export_dir).cells
    for k, item in enumerate(ready):
        _executed(cells[k], executed_dir / item.sub.name if executed_dir is not None else None)
        records += annotate(mine[k], item.nb, item.sub, item.note)
    return records


_SOLUTION_CALL = re.compile(r"\.part([12])\.solution\s*\(")


def _solutions_in_sources(nb) -> set[tuple[str, int, str, int]]:
    """Solution views a notebook's code cells call, read from their source: a learner who called
    solution() and then cleared the outputs leaves the call behind."""
    exercises = {ex for ex, _ in parts_of(nb)}
    if len(exercises) != 1:
        return set()
    (ex_id,) = exercises
    return {
        (ex_id, int(part), "solution", 1)
        for cell in nb.cells
        if cell.cell_type == "code"
        for line in cell.source.splitlines()
        for part in _SOLUTION_CALL.findall(line.split("#", 1)[0])  # a comment calls nothing
    }


def usage_of(nb) -> set[tuple[str, int, str, int]]:
    """(exercise, part, kind, level) of every hint()/solution() use recorded in the notebook's outputs,
    and of every solution() call its sources still hold."""
    found = _solutions_in_sources(nb)
    for data in usage_records(nb):
        level = data.get("level") if isinstance(data.get("level"), int) else 1
        part = data.get("part")
        if data["kind"] in ("hint", "solution") and part in (1, 2):
            found.add((data["exercise"], part, data["kind"], level))
    return found


def part2_checks(verdict) -> list[list[Any]]:
    """[(check, passed)] of a part-2 verdict, as its `checks` say."""
    return [[str(n), bool(ok)] for n, ok in verdict.checks]


def judge_hidden(
    name: str, export_dir: Path, ex_id: str, part: int, answer: AnswerSource | None, learner: str | None
) -> Record:
    """One part's record, judged with trusted code from what its hidden runs wrote."""
    verdict, flags, problem, trail = judge_part(export_dir, ex_id, part, answer, learner)
    if answer is not None and answer.source:  # which answer was judged, for the copies check
        key = variant_for(learner, ex_id).to_json()
        trail = trail | {"answer": {"digest": answer_digest(answer.judged()), "variant": json.dumps(key)}}
    if problem:
        return Record(name, ex_id, part, "error", problem, flags=list(flags), trail=trail)
    checks = part2_checks(verdict) if part == 2 and verdict.status != "not_attempted" else []
    record = Record(name, ex_id, part, verdict.status, verdict.message, checks=checks, trail=trail)
    record.flags += flags
    if answer is not None and answer.dropped:
        record.flags.append("code that never runs was left out: " + "; ".join(answer.dropped[:3]))
    return record


def grade_folder(
    submissions: list[tuple[str, Path]] | list[Submission],
    *,
    jobs: int = 1,
    timeout: float = 120.0,
    executed_dir: Path | None = None,
    progress: bool = True,
    sandbox: Sandbox | None = None,
    secret: str | None = None,
) -> list[Record]:
    """Grade submissions `jobs` learners at a time, one kernel per learner; one bad one never stops the rest.

    Items are Submission values or (name, path) pairs (then the name is also the student).
    progress draws a bar on stderr; each graded submission is also logged (logger
    "autograd_instructor.grading").
    """
    if jobs < 1:
        raise ValueError(f"expected --jobs >= 1, got {jobs}")
    if timeout <= 0:
        raise ValueError(f"expected a positive --timeout in seconds, got {timeout}")
    subs = [s if isinstance(s, Submission) else Submission(s[0], s[0], Path(s[1])) for s in submissions]
    subs = [replace(s, secret=secret) if secret else s for s in subs]
    records: list[Record] = []
    bar = tqdm(total=len(subs), desc="grading", unit="nb", disable=not progress, file=sys.stderr)
    lock = threading.Lock()
    with tempfile.TemporaryDirectory(prefix="autograd-course-grade-") as tmp:
        os.chmod(tmp, 0o700)

        def one(k: int, group: list[Submission]) -> list[Record]:
            scratch = Path(tmp) / f"s{k}"
            scratch.mkdir()
            try:
                return grade_learner(group, scratch, executed_dir, timeout, sandbox)
            except Exception as exc:  # a grader bug must not cost the batch
                why = f"the grader failed on this submission: {type(exc).__name__}: {str(exc)[:160]}"
                return [Record(sub.name, "-", None, "error", why, sub.student) for sub in group]

        groups: dict[str, list[Submission]] = {}
        for sub in subs:  # one kernel per learner: their notebooks' answers run together
            groups.setdefault(sub.student, []).append(sub)
        with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="grade") as pool:
            futures = [pool.submit(one, k, group) for k, group in enumerate(groups.values())]
            for future in as_completed(futures):
                with lock:
                    done = future.result()
                    records += done
                    bar.update(len({r.submission for r in done}))
                    statuses = ", ".join(sorted({r.status for r in done}))
                    count = len({r.submission for r in records})  # bar.n stays 0 when the bar is off
                    log.info("graded %d/%d: %s (%s)", count, len(subs), done[0].submission, statuses)
    bar.close()
    flag_copies(records, _answers(records))
    return records


def _answers(records: list[Record]) -> dict[tuple[str, str, int], tuple[str, str]]:
    """(student, exercise, part) -> (answer digest, variant) of every judged answer."""
    return {
        (r.student, r.exercise, r.part): (r.trail["answer"]["digest"], r.trail["answer"]["variant"])
        for r in records
        if r.part and "answer" in r.trail
    }
