"""Every your-turn check judged against a table of answers: right ones written other ways, plausible wrong.

Each lesson NN with activities has a table `tests/activity_answers/lesson_NN.py` defining

    TABLE = {"NN.k": {"right": [...], "wrong": [...], "with_extra_lines": [...]}}  # lists of Python sources

For every activity: at least one right answer and two wrong ones (three in all), no right answer equal to
the declared solution (a right answer written another way), and at least one right answer beside the
learner's own extra lines (a backward, a print, a second call): a check judges the answer, not the habits
around it. The slow tests run the lesson ONCE, in one kernel: the cells in order; at an activity's answer
cell each alternative source runs in place of the stub, then the check cell TWICE, and both verdicts must be
*correct* for a right answer (with or without extra lines) and *incorrect* for a wrong one (a check that
changes the learner's objects judges the second time differently). Between
alternatives the kernel is put back: the activity's names are removed, the torch RNG state is restored, and
the earlier cells that define a name the alternative reads or writes run again (an answer may mutate them).
Then the declared solution runs in the answer cell and the lesson goes on with it: its check cell, in its
place, must say *correct* (the stored lesson, with the stubs, is strict nbval's: every check *not attempted*).
"""

from __future__ import annotations

import ast
import copy
import importlib.util
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import nbformat
import pytest

from autograd_course.course import course_notebooks
from autograd_course.yourturn import activities, lessons_with_activities
from autograd_course.yourturn.engine import verdict_of

TABLES = Path(__file__).parent / "activity_answers"
LESSONS = {p.name[:2]: p for p in course_notebooks("notebooks")}
DECLARED = [n for n in lessons_with_activities() if n in LESSONS]
by_lesson = pytest.mark.parametrize("lesson", DECLARED)
VERDICT = {"right": "correct", "wrong": "incorrect", "with_extra_lines": "correct"}
SAVE_RNG = "import torch as _t_answers\n_rng_answers = _t_answers.get_rng_state()"
RESTORE_RNG = "_t_answers.set_rng_state(_rng_answers)"


@cache
def table(lesson: str) -> dict[str, dict[str, list[str]]]:
    """The answer table of a lesson (skips the test when the lesson has none yet)."""
    path = TABLES / f"lesson_{lesson}.py"
    if not path.is_file():
        pytest.skip(f"lesson {lesson} has no answer table {path.name} yet")
    spec = importlib.util.spec_from_file_location(f"activity_answers_{lesson}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.TABLE


def roles(nb: Any) -> dict[int, tuple[str, str]]:
    """Cell index -> (activity id, role) for every your-turn cell."""
    found = {}
    for i, cell in enumerate(nb.cells):
        meta = cell.get("metadata", {}).get("autograd_course", {})
        if "yourturn" in meta:
            found[i] = (meta["yourturn"], meta.get("role", ""))
    return found


def names_of(source: str) -> tuple[set[str], set[str]]:
    """(names a source binds, names it reads) at any depth; imports count as neither."""
    bound, read = set(), set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, ast.Store) else read).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
    return bound, read


@by_lesson
def test_table_covers_every_activity_three_ways(lesson: str) -> None:
    answers = table(lesson)
    declared = {a.id: a for a in activities(lesson)}
    assert sorted(answers) == sorted(declared), (
        f"{lesson}: table has {sorted(answers)}, declared {sorted(declared)}"
    )
    for activity_id, entry in answers.items():
        assert set(entry) == set(VERDICT), f"{activity_id}: keys {sorted(entry)}, expected {sorted(VERDICT)}"
        right, wrong = entry["right"], entry["wrong"]
        assert len(right) >= 1 and len(wrong) >= 2, f"{activity_id}: {len(right)} right, {len(wrong)} wrong"
        assert entry["with_extra_lines"], f"{activity_id}: no right answer beside the learner's extra lines"
        assert len(right) + len(wrong) >= 3, activity_id
        solution = declared[activity_id].solution.strip()
        assert all(r.strip() != solution for r in right), (
            f"{activity_id}: a right answer is the solution itself"
        )
        for source in right + wrong + entry["with_extra_lines"]:
            ast.parse(source)  # a table entry that is not Python is a broken table, not a wrong answer


class Kernel:
    """One lesson's kernel, run cell by cell, that can re-run earlier cells and read a check's verdict."""

    def __init__(self, client: Any, cells: list[Any]) -> None:
        self.client, self.cells, self.defines = client, cells, {}

    def run(self, source: str, index: int) -> Any:
        cell = nbformat.v4.new_code_cell(source)
        self.client.execute_cell(cell, index)
        return cell

    def run_cell(self, index: int) -> None:
        self.run(self.cells[index].source, index)
        for name in names_of(self.cells[index].source)[0]:
            self.defines[name] = index

    def reset(self, names: set[str], index: int, activity_names: tuple[str, ...]) -> None:
        """Put back what an answer may have changed: its own names, the cells defining what it touched."""
        self.run("\n".join(f"globals().pop({n!r}, None)" for n in activity_names) or "pass", index)
        for i in sorted({self.defines[n] for n in names if n in self.defines}):
            self.run(RESTORE_RNG, index)
            self.run(self.cells[i].source, index)
        self.run(RESTORE_RNG, index)

    def verdict(self, check_index: int) -> str | None:
        cell = self.run(self.cells[check_index].source, check_index)
        found = [v for out in cell.outputs if (v := verdict_of(out))]
        return found[0]["outcome"] if len(found) == 1 else None


def judge_alternatives(kernel: Kernel, activity: Any, answer: int, check: int, entry: dict) -> list[str]:
    """Run every alternative of one activity at its answer cell; the mismatches, as sentences."""
    problems = []
    touched = set()
    kernel.run(SAVE_RNG, answer)
    for kind in VERDICT:
        for source in entry[kind]:
            bound, read = names_of(source)
            touched |= bound | read
            kernel.reset(bound | read, answer, activity.names)
            try:
                kernel.run(source, answer)
                shown = [kernel.verdict(check), kernel.verdict(check)]
            except Exception as exc:  # the alternative itself raised: the table entry is broken
                problems.append(f"{activity.id} {kind} answer raised {type(exc).__name__}:\n{source}")
                continue
            if shown != [VERDICT[kind]] * 2:
                problems.append(
                    f"{activity.id} {kind} answer shown {shown}, expected {VERDICT[kind]!r} twice:\n{source}"
                )
    kernel.reset(touched, answer, activity.names)
    kernel.run_cell(answer)  # the answer cell as the run holds it (the solution), so the lesson goes on
    return problems


class LessonRun(NamedTuple):
    """One lesson run once in one kernel: the table's mismatches, and each check's verdict on the solution."""

    problems: list[str]
    solved: dict[str, str | None]


def _has_table(lesson: str) -> bool:
    return (TABLES / f"lesson_{lesson}.py").is_file()


@cache
def lesson_run(lesson: str) -> LessonRun | BaseException:
    """The lesson in ONE kernel with every answer cell solved, cut after its last check cell: at each answer
    cell the table's alternatives are judged first (the kernel put back between them), then the solution
    runs and the lesson goes on with it, each check cell in its place. Both tests of a lesson read this one
    run (the file stays on one worker), so no lesson is executed twice. An exception is returned, not raised.
    """
    from nbclient import NotebookClient

    answers = table(lesson) if _has_table(lesson) else {}
    nb = nbformat.read(LESSONS[lesson], as_version=4)
    cells, found = copy.deepcopy(nb.cells), roles(nb)
    declared = {a.id: a for a in activities(lesson)}
    for i, (activity_id, role) in found.items():
        if role == "answer":
            cells[i].source = declared[activity_id].solution  # what the kernel runs there, once judged
    checks = {aid: i for i, (aid, role) in found.items() if role == "check"}
    client = NotebookClient(
        nb,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(LESSONS[lesson].parent)}},
        shutdown_kernel="immediate",  # killed, as the course's own runs do: a graceful stop waits ~2 s
    )
    kernel, problems, solved = Kernel(client, cells), [], {}
    try:
        with client.setup_kernel():
            for i in range(max(checks.values()) + 1):
                activity_id, role = found.get(i, ("", ""))
                if cells[i].cell_type != "code":
                    continue
                if role == "answer" and activity_id in answers:
                    entry = answers[activity_id]
                    problems += judge_alternatives(
                        kernel, declared[activity_id], i, checks[activity_id], entry
                    )
                elif role == "check":
                    shown = [v for out in kernel.run(cells[i].source, i).outputs if (v := verdict_of(out))]
                    one = len(shown) == 1 and shown[0]["id"] == activity_id
                    solved[activity_id] = shown[0]["outcome"] if one else f"{len(shown)} verdicts: {shown}"
                else:
                    kernel.run_cell(i)
    except Exception as exc:  # the lesson itself failed to run: both tests report it
        return exc
    return LessonRun(problems, solved)


def _run(lesson: str) -> LessonRun:
    run = lesson_run(lesson)
    if isinstance(run, BaseException):
        pytest.fail(f"{lesson}: the solved lesson failed to run: {type(run).__name__}: {str(run)[-2000:]}")
    return run


@pytest.mark.slow
@by_lesson
def test_checks_judge_every_answer_in_the_table(lesson: str) -> None:
    table(lesson)  # skips a lesson without a table
    problems = _run(lesson).problems
    assert not problems, f"{lesson}: {len(problems)} answers judged wrongly:\n\n" + "\n\n".join(problems)


@pytest.mark.slow
@by_lesson
def test_solved_lesson_shows_every_activity_correct(lesson: str) -> None:
    """Each declared solution in its answer cell makes its check say correct, and the lesson runs on."""
    shown = _run(lesson).solved
    assert shown == dict.fromkeys(shown, "correct"), f"{lesson}: solved verdicts {shown}"
    assert sorted(shown) == [a.id for a in activities(lesson)]
