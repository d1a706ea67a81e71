"""Fresh virtual environments for the install tests, seeded cheaply from the test's own environment.

A venv made with `--without-pip` gets hard links (or copies, across file systems) of the installed
distributions it needs, torch first, so no test downloads or unpacks a multi-GB wheel; pip then
sees them installed and resolves the rest as it would for a user.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

__all__ = ["PROJECT", "FreshVenv", "build_wheel", "make_venv", "requirement_closure"]

_PREFIX = Path(sys.prefix).resolve()
ROOT = Path(__file__).resolve().parent.parent
PROJECT = "autograd-debugging-course"


class FreshVenv:
    """A virtual environment under a folder: its python, its site-packages, pip run for it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.python = root / "bin" / "python"
        purelib = sysconfig.get_path("purelib", vars={"base": str(root), "platbase": str(root)})
        self.site = Path(purelib)

    def __repr__(self) -> str:
        return f"FreshVenv({self.root})"

    def pip(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        """Run this environment's pip (the test runner's pip, pointed at it with --python)."""
        cmd = [sys.executable, "-m", "pip", "--python", str(self.python), *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)

    def versions(self) -> dict[str, str]:
        """Installed distribution name (canonical) to version, as pip sees it."""
        done = self.pip("list", "--format=freeze", "--disable-pip-version-check")
        assert done.returncode == 0, done.stderr
        pairs = (line.split("==", 1) for line in done.stdout.splitlines() if "==" in line)
        return {canonicalize_name(name): version for name, version in pairs}

    def env(self, home: Path) -> dict[str, str]:
        """Environment for commands run in this venv: its bin first, Jupyter dirs of its own."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOGRAD_COURSE", "PYTHON"))}
        env.update(
            PATH=f"{self.root / 'bin'}{os.pathsep}{env.get('PATH', '')}",
            VIRTUAL_ENV=str(self.root),
            JUPYTER_DATA_DIR=str(home / "jupyter-data"),
            JUPYTER_CONFIG_DIR=str(home / "jupyter-config"),
            JUPYTER_RUNTIME_DIR=str(home / "jupyter-runtime"),
            IPYTHONDIR=str(home / "ipython"),
            MPLCONFIGDIR=str(home / "mpl"),
            PYTHONDONTWRITEBYTECODE="1",
        )
        return env


def requirement_closure(requirements: list[str]) -> list[md.Distribution]:
    """The installed distributions these requirements need, their dependencies included."""
    found: dict[str, md.Distribution] = {}
    todo = [(Requirement(r), "") for r in requirements]
    while todo:
        req, extra = todo.pop()
        if req.marker is not None and not req.marker.evaluate({**default_environment(), "extra": extra}):
            continue
        name = canonicalize_name(req.name)
        try:
            dist = md.distribution(req.name)
        except md.PackageNotFoundError:
            raise LookupError(f"{req.name} is not installed in the test environment to seed from") from None
        for wanted in req.extras | {""}:
            key = f"{name}[{wanted}]"
            if key in found:
                continue
            found[key] = dist
            todo.extend((Requirement(r), wanted) for r in dist.requires or [])
    unique = {canonicalize_name(d.metadata["Name"]): d for d in found.values()}
    unique.pop(PROJECT, None)  # the course itself is what the tests install
    return list(unique.values())


def _link(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def make_venv(root: Path, seed: list[str]) -> FreshVenv:
    """A new venv at root (no pip, no system site-packages) holding the seed requirements' closure."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120)
    venv = FreshVenv(root)
    for dist in requirement_closure(seed):
        for file in dist.files or []:
            source = Path(dist.locate_file(file)).resolve()
            if not source.is_relative_to(_PREFIX) or not source.is_file():
                continue
            rel = source.relative_to(_PREFIX)
            if rel.parts[0] == "bin":  # scripts name the other python; bytecode caches stay valid
                continue
            _link(source, venv.root / rel)
    return venv


def build_wheel(out: Path) -> Path:
    """The course's wheel, built from the checkout without build isolation (no index needed)."""
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "-q",
        "--no-deps",
        "--no-build-isolation",
        "-w",
        str(out),
        str(ROOT),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = out.glob("*.whl")
    return built
