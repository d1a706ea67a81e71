"""Grading submitted notebooks: execute each in a fresh kernel, judge its exported answers outside it.

Threat model. A submission is untrusted code. It runs only in a Jupyter kernel (a child process,
cwd in a scratch folder of the grader's temporary directory, never in SUBMISSIONS_DIR); the grader
never imports or calls it. After the learner's cells, the grader runs one injected cell that writes
the raw answers (stage name, a plain-data summary of the evidence, and the fix's trace: weights
before every step, returned losses, gradients captured by hooks) to that scratch folder. Verdicts
are computed in a separate grader process (`python -m autograd_course.challenge.grading`) from
those files alone, with its own fresh import of the checks, loading tensors with
`torch.load(weights_only=True)`. So monkeypatching torch, the helpers or the check functions in
the notebook changes nothing the grader computes: every loss and gradient is recomputed from the
recorded weights with the grader's own TinyNet. What this does not defend against: a submission
that forges an export which is consistent with real training (it has then done the exercise), or
one that attacks the machine itself (run the grader in a container or a throwaway account).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

__all__ = ["STATUSES", "Record", "grade_folder", "grade_notebook", "inspect_submission", "parts_of"]

STATUSES = ("passed", "failed", "not_attempted", "error", "timeout")
# The worker enforces --timeout on the notebook's cells (and kills the kernel); the parent kills a
# worker that is still there this long after it, in case the worker itself hangs.
GRACE = 60.0


@dataclass
class Record:
    """One row of results.json: a submission's verdict on one part of one exercise."""

    submission: str
    exercise: str
    part: int | None
    status: str
    message: str

    def __repr__(self) -> str:
        return f"Record({self.submission}, {self.exercise} part {self.part}: {self.status})"


def inspect_submission(path: Path) -> tuple[object | None, str]:
    """(notebook, "") when the file is a readable notebook, else (None, the reason it is not)."""
    import nbformat

    try:
        raw = path.read_bytes()
    except OSError as exc:
        return None, f"cannot read the file: {exc.strerror}"
    if not raw.strip():
        return None, "empty file, not a notebook"
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, f"not a notebook: broken JSON ({exc})"
    if not isinstance(data, dict) or "cells" not in data:
        return None, "not a notebook: the JSON has no cells"
    try:
        nb = nbformat.reads(json.dumps(data), as_version=4)
        nbformat.validate(nb)
    except Exception as exc:
        return None, f"not a valid notebook: {str(exc).splitlines()[0][:160]}"
    return nb, ""


def parts_of(nb) -> list[tuple[str, int]]:
    """The (exercise, part) pairs whose cells the notebook holds, found by cell metadata."""
    from autograd_course.challenge.catalogue import EXERCISES
    from autograd_course.challenge.notebooks import challenge_cells

    found = {
        (m["exercise"], m["part"])
        for _, m in challenge_cells(nb)
        if m["exercise"] in EXERCISES and m.get("part") in (1, 2)
    }
    return sorted(found)


def _inject(nb, exercises: dict[str, list[int]], export_dir: Path):
    import nbformat

    lines = ["from autograd_course.challenge.export import export_answers as _ac_export_answers"]
    for ex_id, parts in exercises.items():
        lines.append(f"_ac_export_answers(globals(), {str(export_dir)!r}, {ex_id!r}, {parts!r})")
    cell = nbformat.v4.new_code_cell("\n".join(lines))
    cell.metadata["autograd_course_grader"] = True
    nb.cells.append(cell)


def grade_notebook(
    path: Path, name: str, scratch: Path, executed: Path | None, budget: float
) -> list[Record]:
    """Execute one submission in a fresh kernel, then judge its exports (called in a worker process)."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    deadline = time.monotonic() + budget
    nb, reason = inspect_submission(path)
    if nb is None:
        return [Record(name, "-", None, "error", reason)]
    pairs = parts_of(nb)
    if not pairs:
        return [
            Record(name, "-", None, "error", "no challenge cells found (cell metadata 'autograd_course')")
        ]
    exercises: dict[str, list[int]] = {}
    for ex_id, part in pairs:
        exercises.setdefault(ex_id, []).append(part)
    answered = _answered(nb)
    export_dir = scratch / "export"
    run_dir = scratch / "cwd"
    export_dir.mkdir(parents=True, exist_ok=True)
    run_dir.mkdir(parents=True, exist_ok=True)
    _inject(nb, exercises, export_dir)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    client = NotebookClient(
        nb,
        timeout_func=lambda _source: max(1, int(deadline - time.monotonic())),
        shutdown_kernel="immediate",
        allow_errors=True,
        kernel_name="python3",
        resources={"metadata": {"path": str(run_dir)}},
    )
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    failure = None
    try:
        client.execute(env=env)
    except DeadKernelError as exc:
        failure = ("error", f"the kernel died while running the notebook ({str(exc)[:80]})")
    except CellTimeoutError:
        failure = ("timeout", f"the notebook ran longer than {budget:g} s")
    except Exception as exc:
        failure = ("error", f"the notebook could not be run: {type(exc).__name__}: {str(exc)[:120]}")
    if executed is not None:
        import nbformat

        executed.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, executed)
    if failure is not None:
        return [Record(name, ex, part, failure[0], failure[1]) for ex, part in pairs]
    return [judge_export(name, export_dir, ex, part, (ex, part) in answered) for ex, part in pairs]


def _answered(nb) -> set[tuple[str, int]]:
    from autograd_course.challenge.notebooks import challenge_cells

    return {(m["exercise"], m.get("part")) for _, m in challenge_cells(nb) if m.get("role") == "answer"}


def judge_export(name: str, export_dir: Path, ex_id: str, part: int, has_answer_cell: bool) -> Record:
    """Judge one exported part with trusted code (runs in the grader's worker, not in the kernel)."""
    from autograd_course.challenge.catalogue import exercise
    from autograd_course.challenge.evidence import judge_stage
    from autograd_course.challenge.exercise import part2_verdict
    from autograd_course.challenge.export import export_path
    from autograd_course.challenge.verdict import Outcome, Verdict

    if not has_answer_cell:
        return Record(name, ex_id, part, "not_attempted", "the answer cell of this part is missing")
    path = export_path(export_dir, ex_id, part)
    if not path.exists():
        return Record(name, ex_id, part, "error", "the notebook exported no answers (did it stop early?)")
    ex = exercise(ex_id)
    try:
        if part == 1:
            data = json.loads(path.read_text())
            seed = data["seed"] if isinstance(data.get("seed"), int) else 0
            if data.get("not_attempted"):
                verdict = Verdict(
                    ex_id, 1, Outcome.NOT_ATTEMPTED, "stage and evidence are still placeholders"
                )
            else:
                ok, message = judge_stage(ex.bug, seed, data.get("stage"), data.get("summary") or {})
                verdict = Verdict(ex_id, 1, Outcome.CORRECT if ok else Outcome.INCORRECT, message)
        else:
            import torch

            trace = torch.load(path, weights_only=True)
            seed = trace.get("seed", 0) if isinstance(trace, dict) else 0
            verdict = part2_verdict(
                ex, seed if isinstance(seed, int) else 0, trace if isinstance(trace, dict) else {}
            )
    except Exception as exc:
        return Record(
            name, ex_id, part, "failed", f"the exported answer could not be read: {type(exc).__name__}"
        )
    return Record(name, ex_id, part, verdict.status, verdict.message)


def find_submissions(folder: Path) -> list[Path]:
    """Every file under folder (any name, nested), except hidden files and checkpoints."""
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    )


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    proc.wait()


def grade_folder(
    submissions: list[tuple[str, Path]],
    *,
    jobs: int = 1,
    timeout: float = 120.0,
    executed_dir: Path | None = None,
    progress: bool = True,
) -> list[Record]:
    """Grade (name, path) submissions in parallel worker processes; one bad one never stops the rest."""
    from tqdm import tqdm

    if jobs < 1:
        raise ValueError(f"expected --jobs >= 1, got {jobs}")
    if timeout <= 0:
        raise ValueError(f"expected a positive --timeout in seconds, got {timeout}")
    records: list[Record] = []
    pending = list(submissions)
    running: list[tuple[str, subprocess.Popen, float, Path, Path]] = []
    bar = tqdm(total=len(pending), desc="grading", unit="nb", disable=not progress, file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="autograd-course-grade-") as tmp:
        counter = 0
        while pending or running:
            while pending and len(running) < jobs:
                name, path = pending.pop(0)
                counter += 1
                scratch = Path(tmp) / f"s{counter}"
                scratch.mkdir()
                out = scratch / "records.json"
                executed = executed_dir / name if executed_dir is not None else None
                cmd = [
                    sys.executable,
                    "-m",
                    "autograd_course.challenge.grading",
                    str(path),
                    name,
                    str(scratch),
                    str(out),
                    str(timeout),
                    str(executed or ""),
                ]
                with (scratch / "stderr.txt").open("wb") as stderr:  # a file: a full pipe would block
                    proc = subprocess.Popen(
                        cmd, cwd=scratch, start_new_session=True, stdout=subprocess.DEVNULL, stderr=stderr
                    )
                running.append((name, proc, time.monotonic(), out, path))
            time.sleep(0.1)
            for item in list(running):
                name, proc, started, out, path = item
                if proc.poll() is None and time.monotonic() - started <= timeout + GRACE:
                    continue
                if proc.poll() is None:
                    _kill_group(proc)
                    records += _whole(
                        name, path, "timeout", f"grading took longer than {timeout + GRACE:g} s"
                    )
                elif out.exists():
                    records += [Record(**r) for r in json.loads(out.read_text())]
                else:
                    lines = (out.parent / "stderr.txt").read_text(errors="replace").strip().splitlines()
                    records += _whole(
                        name, path, "error", f"grading crashed: {(lines or ['no output'])[-1][:160]}"
                    )
                running.remove(item)
                bar.update(1)
    bar.close()
    return records


def _whole(name: str, path: Path, status: str, message: str) -> list[Record]:
    nb, _ = inspect_submission(path)
    pairs = parts_of(nb) if nb is not None else []
    return [Record(name, ex, part, status, message) for ex, part in pairs] or [
        Record(name, "-", None, status, message)
    ]


def _worker(argv: list[str]) -> int:
    path, name, scratch, out, budget, executed = argv
    records = grade_notebook(
        Path(path), name, Path(scratch), Path(executed) if executed else None, float(budget)
    )
    Path(out).write_text(json.dumps([asdict(r) for r in records]))
    return 0


if __name__ == "__main__":
    sys.exit(_worker(sys.argv[1:]))
