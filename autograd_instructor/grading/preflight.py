"""Before grading: can this installation grade at all? A grader that cannot must stop, not give zeros.

One probe kernel, started exactly as a submission's would be (same kernel, same sandbox, same
environment), imports what the grader's export cell needs. If it cannot, every submission would
come out `error` and every gradebook 0: the grader stops with exit 2 and says what to install.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

from autograd_course.execution.kernel import KernelSpec, execute_cells
from autograd_course.execution.sandbox import Sandbox
from autograd_instructor.grading.grade import Submission, inspect_submission, kernel_env, parts_of

__all__ = ["INSTALL_HINT", "PROBE", "GraderUnusable", "check_grader", "grader_problem"]

INSTALL_HINT = (
    "install the grader into the Python that runs the kernels: "
    "pip install -c constraints.txt 'autograd-debugging-course[grade]' (torch's CPU build: add "
    "--extra-index-url https://download.pytorch.org/whl/cpu)"
)
# What the grader's hidden-run cells import: torch and the toolkit (the harness itself is sent as text).
PROBE = "import torch\nimport helpers\nprint('ready')"


class GraderUnusable(RuntimeError):
    """This installation cannot grade; the message says why and what to install."""


def grader_problem(sandbox: Sandbox | None, timeout_s: float = 120) -> str:
    """'' when a kernel can be started (in the sandbox) and import torch and the toolkit, else why not."""
    try:
        KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        return f"no Jupyter kernel 'python3' (pip install ipykernel); {INSTALL_HINT}"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(PROBE)])
    with tempfile.TemporaryDirectory(prefix="autograd-course-probe-") as tmp:
        scratch = Path(tmp)
        (scratch / "home").mkdir()
        env = kernel_env(None, scratch, sandbox is not None and sandbox.confined)
        spec = KernelSpec(cwd=scratch, env=env, sandbox=sandbox, scratch=scratch)
        execution = execute_cells(nb, spec, timeout_s)
    if execution.status == "passed":
        return ""
    if execution.errors:
        err = execution.errors[0]
        why = f"{err.name}: {err.message}"
        return f"the grading kernel cannot import torch or the toolkit ({why}); {INSTALL_HINT}"
    return f"the grading kernel does not run ({execution.message}); {INSTALL_HINT}"


def _needs_a_kernel(subs: list[Submission]) -> bool:
    """Whether any submission gets as far as a kernel (a notebook with challenge cells)."""
    for sub in subs:
        nb, _ = inspect_submission(sub.path) if not sub.problem else (None, "")
        if nb is not None and parts_of(nb):
            return True
    return False


def check_grader(sandbox: Sandbox | None, subs: list[Submission]) -> None:
    """Raise GraderUnusable when the submissions need a kernel and grader_problem finds one."""
    if not _needs_a_kernel(subs):
        return
    problem = grader_problem(sandbox)
    if problem:
        raise GraderUnusable(problem)
