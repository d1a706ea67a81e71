"""A throwaway JupyterLab server over a temporary copy of the course, stopped by its process id."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

__all__ = ["LAB_SETTINGS", "LabServer", "copy_course"]

# User settings the tests need, written into the server's own settings dir (never the developer's):
# every cell rendered (no virtual scrolling), and no news or update checks (there is no network).
LAB_SETTINGS: dict[str, dict[str, object]] = {
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
}

_COPIED_DIRS = ("notebooks", "solutions", "exercises")
_SKIPPED = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__", "runs", "my-work")


def copy_course(repo: Path, dest: Path, extra: dict[str, Path] | None = None) -> Path:
    """Copy the course folders (and `extra` folders under new names) into `dest`; return `dest`."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in _COPIED_DIRS:
        if (repo / name).is_dir():
            shutil.copytree(repo / name, dest / name, ignore=_SKIPPED)
    for name, source in (extra or {}).items():
        shutil.copytree(source, dest / name, ignore=_SKIPPED)
    return dest


class _PortTaken(Exception):
    """The server could not bind the port it was given: another process took it first."""


def _free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (None when `pid` is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()


def _start_time(pid: int) -> int | None:
    """The start time of `pid` in clock ticks (None when it is gone): with the pid, an identity."""
    fields = _stat(pid)
    return None if fields is None else int(fields[19])


def _descendants(pid: int) -> list[tuple[int, int]]:
    """(pid, start time) of every process below `pid`; kernels run in their own session."""
    children: dict[int, list[tuple[int, int]]] = {}
    for entry in Path("/proc").iterdir():
        fields = _stat(int(entry.name)) if entry.name.isdigit() else None
        if fields is not None:
            children.setdefault(int(fields[1]), []).append((int(entry.name), int(fields[19])))
    found: list[tuple[int, int]] = []
    stack = [pid]
    while stack:
        for child, started in children.get(stack.pop(), []):
            found.append((child, started))
            stack.append(child)
    return found


def stop_tree(process: subprocess.Popen, grace: float) -> None:
    """Stop a server started in its own process group, and every process below it: TERM, then KILL."""
    if process.poll() is not None:
        return
    below = _descendants(process.pid)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        below += _descendants(process.pid)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=grace)
    for pid, started in below:  # kernels run in their own session: killed one by one
        if _start_time(pid) == started:  # still the process we started, not a reused pid
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


class LabServer:
    """JupyterLab on 127.0.0.1, a free port and a random token, with config, data and settings in `home`."""

    def __init__(self, root: Path, home: Path, repo: Path) -> None:
        self.root, self.home, self.repo = root, home, repo
        self.token = secrets.token_hex(16)
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = home / "jupyterlab.log"
        self._shutdowns: list[threading.Thread] = []

    def __repr__(self) -> str:
        state = f"pid {self.process.pid}" if self.process else "not running"
        return f"LabServer(http://127.0.0.1:{self.port}, root={str(self.root)!r}, {state})"

    @property
    def url(self) -> str:
        """The server's base URL, without the token."""
        return f"http://127.0.0.1:{self.port}"

    def lab_url(self, path: str) -> str:
        """The URL that opens `path` (relative to the root) in JupyterLab with a fresh workspace."""
        return f"{self.url}/lab/tree/{path}?reset&token={self.token}"

    def environment(self) -> dict[str, str]:
        """The server's environment: every Jupyter and IPython dir inside `home`, helpers importable."""
        env = dict(os.environ)
        for var, sub in [
            ("JUPYTER_CONFIG_DIR", "config"),
            ("JUPYTER_DATA_DIR", "data"),
            ("JUPYTER_RUNTIME_DIR", "runtime"),
            ("IPYTHONDIR", "ipython"),
        ]:
            env[var] = str(self.home / sub)
        env["PYTHONPATH"] = os.pathsep.join(p for p in [str(self.repo), env.get("PYTHONPATH", "")] if p)
        env["JUPYTER_PLATFORM_DIRS"] = "1"
        env.pop("JUPYTER_TOKEN", None)
        return env

    def _write_settings(self) -> Path:
        """Write LAB_SETTINGS as JupyterLab user settings files; return the settings dir."""
        settings = self.home / "settings"
        for plugin, values in LAB_SETTINGS.items():
            package, name = plugin.rsplit("/", 1)
            path = settings / package / f"{name}.jupyterlab-settings"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values))
        return settings

    def start(self, timeout: float = 90.0, attempts: int = 3) -> LabServer:
        """Start the server and wait until its API answers; a new free port if the last was taken.

        Between `_free_port()` closing its probe socket and the server binding, another process
        (a kernel of a parallel test) can take the port: the server then exits, and something
        that is not HTTP may answer on that port meanwhile.
        """
        for attempt in range(attempts):
            try:
                return self._start_once(timeout)
            except _PortTaken:
                if attempt == attempts - 1:
                    raise RuntimeError(f"JupyterLab found no free port in {attempts} tries") from None
        raise AssertionError("unreachable")

    def _start_once(self, timeout: float) -> LabServer:
        """One start on a fresh port; raises _PortTaken when the port was lost to another process."""
        settings = self._write_settings()
        (self.home / "workspaces").mkdir(parents=True, exist_ok=True)
        self.port = _free_port()
        command = [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--allow-root",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
            f"--LabApp.user_settings_dir={settings}",
            f"--LabApp.workspaces_dir={self.home / 'workspaces'}",
            "--LabApp.expose_app_in_browser=True",
            "--LabApp.news_url=None",
            "--LabApp.extension_manager=readonly",
            # A kernel is killed when its notebook is closed, as the course's own runs do: a graceful
            # stop gives the kernel up to 5 s to exit, and the next notebook waits for it.
            "--KernelManager.shutdown_wait_time=0",
        ]
        log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            command,
            cwd=self.root,
            env=self.environment(),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                if "already in use" in self.log_tail():
                    raise _PortTaken(self.port)
                raise RuntimeError(f"JupyterLab exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                self.api("GET", "/api/status")
                return self
            except (OSError, urllib.error.URLError, http.client.HTTPException):
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(
            f"JupyterLab did not answer on {self.url} within {timeout:.0f} s:\n{self.log_tail()}"
        )

    def log_tail(self, lines: int = 40) -> str:
        """The last lines of the server's log."""
        if not self.log_path.exists():
            return "(no log)"
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def api(self, method: str, path: str) -> object:
        """Call the server's REST API with the token; return the decoded JSON (None when empty)."""
        request = urllib.request.Request(
            f"{self.url}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def shutdown_kernels(self) -> None:
        """Shut down every kernel the browser started, in the background (the next notebook need not wait)."""
        kernels = [k["id"] for k in self.api("GET", "/api/kernels") or []]  # type: ignore[union-attr]
        sessions = [s["id"] for s in self.api("GET", "/api/sessions") or []]  # type: ignore[union-attr]

        def shut_down() -> None:
            for path in [*(f"/api/sessions/{s}" for s in sessions), *(f"/api/kernels/{k}" for k in kernels)]:
                with contextlib.suppress(OSError, urllib.error.URLError):
                    self.api("DELETE", path)

        thread = threading.Thread(target=shut_down, name="shutdown-kernels", daemon=True)
        thread.start()
        self._shutdowns.append(thread)

    def wait_for_shutdowns(self, grace: float = 10.0) -> None:
        """Wait until the kernels asked to shut down are gone (each request runs on a thread)."""
        for thread in self._shutdowns:
            thread.join(timeout=grace)

    def stop(self, grace: float = 10.0) -> None:
        """Stop the server and every process below it (kernels included): TERM, then KILL."""
        self.wait_for_shutdowns(grace)
        process = self.process
        if process is None:
            return
        self.process = None
        stop_tree(process, grace)
