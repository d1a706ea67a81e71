"""Gradescope: grade one submission inside the autograder bundle (`run_autograder`; the bundle: bundle.py).

Gradescope unpacks the bundle in /autograder/source, runs setup.sh once when building the image,
then for every submission runs /autograder/run_autograder with the learner's files in
/autograder/submission, and reads /autograder/results/results.json. The root is configurable
(`AUTOGRADER_ROOT`, or --root) so the same code runs against a fake root in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from autograd_course.execution.sandbox import choose_sandbox
from autograd_instructor.challenge.secret import SecretError, read_secret
from autograd_instructor.grading.bundle import SECRET_NAME
from autograd_instructor.grading.feedback import check_line, exercise_named, look_at, override_lines
from autograd_instructor.grading.grade import grade_folder
from autograd_instructor.grading.learner_ids import add_notes, resolve_submissions
from autograd_instructor.grading.overrides import OVERRIDES_NAME, Override, OverrideError, read_overrides
from autograd_instructor.grading.preflight import GraderUnusable, check_grader
from autograd_instructor.grading.results import read_results, write_results
from autograd_instructor.grading.scoring import exercise_max
from autograd_instructor.grading.students import Student, submissions_of

__all__ = ["gradescope_results", "run_autograder"]


def _learner(root: Path) -> tuple[str, list[str], str]:
    """(the learner's id, their other ids, where the id came from) from submission_metadata.json.

    The id is the sid, else the email (Gradescope leaves sid empty for learners without one).
    """
    try:
        user = json.loads((root / "submission_metadata.json").read_text())["users"][0]
        sid, email = str(user.get("sid") or "").strip(), str(user.get("email") or "").strip()
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError):
        return "learner", [], "no submission_metadata.json"
    if sid:
        return sid, [email] if email else [], "Gradescope sid"
    return (email, [], "Gradescope email: the sid is empty") if email else ("learner", [], "no sid or email")


def gradescope_results(records: list, warning: str = "") -> dict:
    """Gradescope's results.json: score, and per test name, score, max_score, output, visibility.

    Everything in it is shown to the student; what is for the instructor (an unsandboxed run, a
    learner id to check) goes to `extra_data` and the autograder's log (stderr), which only staff see.
    """
    tests = []
    for r in records:
        name = f"Exercise {r.exercise}, part {r.part}" if r.part else r.submission
        lines = [f"{r.status.replace('_', ' ')}: {r.message}"]
        lines += [line.replace("**", "") for line in override_lines(r.override)] if r.override else []
        lines += [check_line(check, ok) for check, ok in r.checks]
        lines.append(f"What to look at: {look_at(r)}")
        # a notebook that could not be graded still counts its exercise's points as possible
        named = exercise_named(r.submission) if r.exercise == "-" else None
        tests.append(
            {
                "name": name,
                "score": r.points,
                "max_score": exercise_max() if named else r.max_points,
                "output": "\n".join(lines),
                "visibility": "visible",
            }
        )
    score, most = sum(t["score"] for t in tests), sum(t["max_score"] for t in tests)
    data = {
        "score": score,
        "output": f"Graded by autograd-course: {score:g} of {most:g} points for what you submitted.",
        "visibility": "visible",
        "tests": tests,
    }
    staff = {"instructor_warning": warning} if warning else {}
    notes = sorted({f"{r.submission}: {r.note}" for r in records if r.note})
    if notes:
        staff["learner_ids_to_check"] = notes
    if staff:
        data["extra_data"] = staff
        print("\n".join(filter(None, [warning, *notes])), file=sys.stderr)
    return data


def bundled_overrides(root: Path) -> list[Override]:
    """The overrides `gradescope --overrides` put in the bundle (source/overrides.csv), else none."""
    path = root / "source" / OVERRIDES_NAME
    return read_overrides(path) if path.is_file() else []


def bundled_secret(root: Path) -> str | None:
    """The release's secret `gradescope --secret` put in the bundle (source/release-secret.json) or None."""
    path = root / "source" / SECRET_NAME
    return read_secret(path) if path.is_file() else None


def run_autograder(root: Path, timeout: float = 600, sandbox_mode: str = "auto") -> dict:
    """Grade the notebooks in root/submission as one learner; write root/results/results.json."""
    learner, others, source = _learner(root)
    folder = root / "submission"
    files = sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []
    secret = bundled_secret(root)
    sandbox = choose_sandbox(sandbox_mode, hidden=[root / "results", root / "source" / SECRET_NAME])
    results_dir = root / "results"
    with tempfile.TemporaryDirectory() as scratch, tempfile.TemporaryDirectory() as work:
        subs = submissions_of([Student(learner, "", files)], folder, Path(scratch))
        notes = resolve_submissions(subs, {learner: others}, {learner: source}, secret)
        check_grader(sandbox, subs)  # GraderUnusable: no results.json, so Gradescope reports a failure, not 0
        records = grade_folder(subs, jobs=1, timeout=timeout, progress=False, sandbox=sandbox, secret=secret)
        add_notes(records, notes)
        mine = [o for o in bundled_overrides(root) if o.learner == learner]
        write_results(records, Path(work), warning=sandbox.warning, overrides=mine)  # scores the records
        records = read_results(Path(work))[0]  # with the overridden parts of notebooks never submitted
    data = gradescope_results(records, sandbox.warning)
    if not files:
        data["output"] = "No files were submitted."
    results_dir.mkdir(parents=True, exist_ok=True)
    (results_dir / "results.json").write_text(json.dumps(data, indent=1) + "\n")
    return data


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograd_instructor.grading.gradescope")
    parser.add_argument("--root", default=os.environ.get("AUTOGRADER_ROOT", "/autograder"))
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args(argv)
    try:
        run_autograder(Path(args.root), args.timeout)
    except (GraderUnusable, OverrideError, SecretError) as exc:
        print(f"error: the autograder cannot grade (no score written): {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
