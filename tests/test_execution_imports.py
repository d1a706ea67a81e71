"""The learner's install (core + [lab]) has no nbval or papermill: `check` must not need them."""

from __future__ import annotations

import subprocess
import sys

BLOCK = (
    "import sys\n"
    "class _Block:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name.split('.')[0] in ('nbval', 'papermill'):\n"
    "            raise ModuleNotFoundError(f'No module named {name!r} (blocked by the test)')\n"
    "sys.meta_path.insert(0, _Block())\n"
)


def _import_blocked(module: str) -> subprocess.CompletedProcess:
    code = BLOCK + f"import {module}\nprint('ok')\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_the_block_refuses_papermill():
    done = _import_blocked("autograd_instructor.regression.execute")
    assert done.returncode != 0 and "blocked by the test" in done.stderr


LEARNER_SIDE = (
    "autograd_course.execution.kernel",
    "autograd_course.execution.sandbox",
    "autograd_instructor.grading.grade",
    "autograd_instructor.grading.classroom",
    "autograd_instructor.grading.gradescope",
    "autograd_instructor.commands.check",
    "autograd_course.commands.progress",
)


def test_the_executor_and_the_grader_import_without_nbval_or_papermill():
    done = _import_blocked(", ".join(LEARNER_SIDE))  # one interpreter: torch is imported once
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
