"""The sandbox a learner's kernel runs in: bubblewrap, resource limits, and what it may see.

bubblewrap (Debian's `bubblewrap`) starts the kernel in new user, mount, PID, network, IPC and UTS
namespaces: no network (the kernel talks to the grader over Unix sockets in its scratch folder),
the file system read-only and reduced to the system, the Python environment and the course
package (never the solutions, the submissions, the roster or the results), one writable scratch
folder, and limits on memory (address space), CPU time and processes, set inside the sandbox so
they count that submission's processes only. Every capability is dropped, so the kernel cannot
undo the mounts that hide things; of /etc only the files a Python process needs are shown.
The process limit is RLIMIT_NPROC inside the sandbox's own user namespace; run as root (whose
processes that limit never stops) it is a `pids` cgroup instead, when the cgroup tree is writable.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path

__all__ = [
    "MODES",
    "Sandbox",
    "SandboxError",
    "bwrap_problem",
    "choose_sandbox",
    "course_import_path",
    "release_cgroup",
]

MODES = ("auto", "bwrap", "none")
NOBODY = 65534
ETC = (
    "alternatives",
    "ca-certificates",
    "fonts",
    "group",
    "hosts",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "mime.types",
    "nsswitch.conf",
    "os-release",
    "passwd",
    "ssl",
)
UNSANDBOXED_WARNING = (
    "WARNING: bubblewrap is not usable here ({why}); submissions ran UNSANDBOXED, with the grader's "
    "rights (network, every file the grader can read). Install bubblewrap (apt-get install -y "
    "bubblewrap) or grade in a throwaway container."
)


class SandboxError(RuntimeError):
    """The sandbox asked for cannot be had (e.g. --sandbox bwrap without a working bubblewrap)."""


@dataclass
class Sandbox:
    """How kernels are confined: mode 'bwrap' or 'none', limits, and paths they must never see."""

    mode: str = "none"
    memory_bytes: int = 4 << 30
    cpu_seconds: int = 600
    processes: int = 128
    hidden: list[Path] = field(default_factory=list)
    warning: str = ""
    course: bool = True  # False: the kernel sees the toolkit but not the course package (part 2's runs)

    def __repr__(self) -> str:
        limits = f"{self.memory_bytes >> 20} MiB, {self.cpu_seconds} s CPU, {self.processes} processes"
        return f"Sandbox({self.mode}, {limits})"

    @property
    def confined(self) -> bool:
        """True when kernels run inside bubblewrap."""
        return self.mode == "bwrap"

    def wrap(self, argv: list[str], scratch: Path, cwd: Path) -> list[str]:
        """The command that runs argv (a kernel) inside the sandbox, limits included."""
        limits = [sys.executable, "-c", _LIMITS, str(self.memory_bytes), str(self.cpu_seconds)]
        if not self.confined:
            return [*limits, "0", *argv]  # no process limit: outside a user namespace it counts all of ours
        hidden = self.hidden if self.course else [*self.hidden, _course_packages()[0]]
        inner = [*_bwrap_prefix(scratch, cwd, hidden, self.course), *limits, str(self.processes), *argv]
        group = _pids_cgroup(scratch, self.processes) if os.geteuid() == 0 else None
        if group is None:
            return inner
        return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(group / "cgroup.procs"), *inner]

    @property
    def process_limit_note(self) -> str:
        """A warning when the process limit cannot be enforced here, else ""."""
        if self.confined and os.geteuid() == 0 and _cgroup_root() is None:
            return "running as root without a writable pids cgroup: the process limit is not enforced"
        return ""


def _cgroup_root() -> Path | None:
    for base in (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup")):
        if (
            (base / "cgroup.procs").exists()
            and os.access(base, os.W_OK)
            and (base.name == "pids" or "pids" in _read(base / "cgroup.subtree_control"))
        ):
            return base
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _group_name(scratch: Path) -> str:
    """One kernel's cgroup name: unique per scratch folder (two kernels with same-named folders must never
    share a group, or one's clean-up kills the other)."""
    digest = hashlib.sha256(str(scratch.resolve()).encode()).hexdigest()[:16]
    return f"autograd-course-{os.getpid()}-{digest}"


def _pids_cgroup(scratch: Path, limit: int) -> Path | None:
    """A fresh pids cgroup for one kernel (removed by release_cgroup), or None when there is none."""
    root = _cgroup_root()
    if root is None:
        return None
    group = root / _group_name(scratch)
    try:
        group.mkdir(exist_ok=True)
        (group / "pids.max").write_text(str(limit))
    except OSError:
        return None
    return group


def release_cgroup(scratch: Path) -> None:
    """Kill what is left in a kernel's cgroup and remove it."""
    root = _cgroup_root()
    group = root / _group_name(scratch) if root else None
    if group is None or not group.is_dir():
        return
    for _ in range(200):  # up to 10 s: a fork bomb's processes take a while to die
        pids = _read(group / "cgroup.procs").split()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid), 9)
        try:
            group.rmdir()
            return
        except OSError:
            time.sleep(0.05)


# Runs inside the sandbox: set the limits on itself, then become the kernel.
_LIMITS = (
    "import os, resource, sys\n"
    "mem, cpu, nproc = (int(x) for x in sys.argv[1:4])\n"
    "resource.setrlimit(resource.RLIMIT_AS, (mem, mem))\n"
    "resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))\n"
    "nproc and resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))\n"
    "resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n"
    "resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 30, 1 << 30))\n"
    "os.execv(sys.argv[4], sys.argv[4:])\n"
)


def _course_packages() -> list[Path]:
    """The folders of the course's packages, as this process imports them."""
    # Found, not imported: helpers imports torch, and the CLI reads this module's MODES.
    return [Path(find_spec(name).origin).parent for name in ("autograd_course", "helpers")]


def course_import_path() -> str:
    """PYTHONPATH for a kernel that must import the same course code as the grader (not another install)."""
    return os.pathsep.join(dict.fromkeys(str(p.parent) for p in _course_packages()))


def _visible_roots(course: bool = True) -> list[Path]:
    """Folders the kernel needs to read: the system, the Python installation, the toolkit and (course)
    the course package."""
    paths = {Path(p) for p in ("/usr", "/opt") if Path(p).is_dir()}
    for key in ("stdlib", "platstdlib", "purelib", "platlib", "data"):
        paths.add(Path(sysconfig.get_paths()[key]))
    paths |= {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix)}
    paths |= set(_course_packages() if course else _course_packages()[1:])
    real = {p.resolve() for p in paths if p.exists()}
    # Keep only the outermost folders: bwrap mounts them in order, inner ones would be redundant.
    return sorted(p for p in real if not any(q != p and q in p.parents for q in real))


def _bwrap_prefix(scratch: Path, cwd: Path, hidden: list[Path], course: bool = True) -> list[str]:
    argv = [
        "bwrap",
        "--unshare-all",
        "--unshare-user",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
    ]
    argv += ["--uid", str(NOBODY), "--gid", str(NOBODY)]
    argv += ["--proc", "/proc", "--dev", "/dev", "--size", str(256 << 20), "--tmpfs", "/tmp"]
    for name in ETC:
        if (Path("/etc") / name).exists():
            argv += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64"):
        top = Path("/") / name
        if top.is_symlink():
            argv += ["--symlink", os.readlink(top), str(top)]
        elif top.is_dir():
            argv += ["--ro-bind", str(top), str(top)]
    roots = _visible_roots(course)
    for root in roots:
        argv += ["--ro-bind", str(root), str(root)]
    for path in hidden:  # mask anything secret that sits inside a visible folder
        path = path.resolve()
        if path.exists() and any(r == path or r in path.parents for r in roots):
            argv += ["--tmpfs", str(path)] if path.is_dir() else ["--ro-bind", "/dev/null", str(path)]
    argv += ["--bind", str(scratch), str(scratch), "--chdir", str(cwd)]
    argv += ["--setenv", "HOME", str(scratch / "home"), "--setenv", "TMPDIR", "/tmp"]
    # The kernel's parent is the sandbox's init (PID 1): ipykernel must not read that as orphaned;
    # --die-with-parent ends the sandbox with the grader instead.
    argv += ["--setenv", "JPY_PARENT_PID", "1", "--"]
    return argv


@functools.lru_cache(maxsize=1)
def bwrap_problem() -> str:
    """Why bubblewrap cannot confine a kernel here, or "" when it can."""
    if shutil.which("bwrap") is None:
        return "bwrap is not installed"
    probe = Path(os.environ.get("TMPDIR", "/tmp")) / f"autograd-course-bwrap-probe-{os.getpid()}"
    probe.mkdir(exist_ok=True)
    try:
        box = Sandbox("bwrap")
        cmd = box.wrap([sys.executable, "-c", "open('ok', 'w').write('1')"], probe, probe)
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        if done.returncode != 0 or not (probe / "ok").exists():
            lines = (done.stderr or "no message").strip().splitlines()
            return f"bwrap failed: {lines[-1][:160]}"
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap failed: {exc}"
    finally:
        release_cgroup(probe)
        shutil.rmtree(probe, ignore_errors=True)
    return ""


def choose_sandbox(mode: str, *, hidden: list[Path] = (), **limits: int) -> Sandbox:
    """The sandbox for --sandbox auto|bwrap|none; auto without bubblewrap carries a loud warning."""
    if mode not in MODES:
        raise SandboxError(f"--sandbox must be one of {', '.join(MODES)}; got {mode!r}")
    hidden = list(hidden)
    if mode == "none":
        return Sandbox(
            "none", hidden=hidden, warning=UNSANDBOXED_WARNING.format(why="--sandbox none"), **limits
        )
    why = bwrap_problem()
    if not why:
        return Sandbox("bwrap", hidden=hidden, **limits)
    if mode == "bwrap":
        raise SandboxError(f"--sandbox bwrap: {why}")
    return Sandbox("none", hidden=hidden, warning=UNSANDBOXED_WARNING.format(why=why), **limits)
