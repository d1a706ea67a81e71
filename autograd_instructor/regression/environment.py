"""What a run ran on: torch build, CUDA/cuDNN/ROCm, device, CPU capability, threads, Python, course commit."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import subprocess
from pathlib import Path
from typing import Any

__all__ = ["PROBE", "course_version", "probe_interpreter"]

# Runs in the kernel's interpreter with the kernel's environment (ATEN_CPU_CAPABILITY, OMP_NUM_THREADS
# reach it as they reach the notebooks), so it records what the notebooks ran with, not what this
# process has. argv[1] is the device the notebooks were given ("" for their default).
PROBE = r"""
import json, platform, sys
env = {"python": platform.python_version()}
def cpu_name():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
env["cpu_name"] = cpu_name()
try:
    import torch
except ImportError:
    torch = None
if torch is not None:
    env["torch"] = torch.__version__
    env["cuda"] = torch.version.cuda
    env["rocm"] = getattr(torch.version, "hip", None)
    try:
        env["cudnn"] = torch.backends.cudnn.version()
    except Exception:
        env["cudnn"] = None
    env["cpu_capability"] = torch.backends.cpu.get_cpu_capability()
    env["threads"] = torch.get_num_threads()
    env["gpu_name"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
device = sys.argv[1] if len(sys.argv) > 1 else ""
gpu = device.startswith(("cuda", "gpu")) and env.get("gpu_name")
env["device_name"] = env["gpu_name"] if gpu else env["cpu_name"]
print(json.dumps(env))
"""


def probe_interpreter(
    exe: str, device: str | None = None, extra_env: dict[str, str] | None = None, timeout_s: float = 120
) -> dict[str, Any]:
    """The environment `exe` gives the notebooks; {} when it cannot be probed (the report says so)."""
    env = {**os.environ, **(extra_env or {})}
    try:
        out = subprocess.run(
            [exe, "-c", PROBE, device or ""], capture_output=True, text=True, timeout=timeout_s, env=env
        )
    except (OSError, subprocess.TimeoutExpired):
        return {}
    if out.returncode != 0:
        return {}
    try:
        found = json.loads(out.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {}
    return found if isinstance(found, dict) else {}


def course_version(root: Path) -> str:
    """The course's git commit (`+modified.<hash of the changes>` when tracked files changed), else the
    package version. Two edited copies of one commit so record different versions."""
    if (root / ".git").exists():
        try:
            head = subprocess.run(
                ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30
            )
            dirty = subprocess.run(
                ["git", "-C", str(root), "diff", "HEAD", "--binary"], capture_output=True, timeout=60
            )
        except (OSError, subprocess.TimeoutExpired):
            head = dirty = None
        if head is not None and head.returncode == 0 and head.stdout.strip():
            changes = dirty.stdout if dirty is not None and dirty.returncode == 0 else b""
            modified = f"+modified.{hashlib.sha256(changes).hexdigest()[:12]}" if changes.strip() else ""
            return head.stdout.strip() + modified
    try:
        return "package " + importlib.metadata.version("autograd-debugging-course")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"
