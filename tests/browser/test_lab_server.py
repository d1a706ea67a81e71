"""The JupyterLab fixture's server: private dirs, a token, and a stop that takes its kernels with it."""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from browser.course_files import FIXTURES, REPO
from browser.lab_server import LabServer, _descendants, _start_time, copy_course

pytestmark = pytest.mark.slow


def test_server_keeps_to_its_dirs_and_stops_with_its_kernels(tmp_path: Path) -> None:
    """Token required, runtime files in its own dir, and after stop() neither it nor its kernel runs."""
    root = copy_course(REPO, tmp_path / "course", {"fixtures": FIXTURES})
    server = LabServer(root, tmp_path / "home", REPO).start()
    try:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{server.url}/api/kernels", timeout=10)
        assert refused.value.code == 403
        assert list((tmp_path / "home" / "runtime").glob("jpserver-*.json")), "runtime files went elsewhere"
        server.api("POST", "/api/kernels")
        deadline = time.monotonic() + 60
        while not (kernels := [p for p in _descendants(server.process.pid) if _kernel(p[0])]):
            assert time.monotonic() < deadline, "the kernel never started"
            time.sleep(0.2)
        server_pid = server.process.pid
    finally:
        server.stop()
    assert _start_time(server_pid) is None
    assert all(_start_time(pid) != started for pid, started in kernels), "a kernel outlived the server"


def _kernel(pid: int) -> bool:
    """Whether `pid` runs an IPython kernel."""
    try:
        return b"ipykernel" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def test_server_moves_to_a_new_port_when_its_port_is_taken(tmp_path: Path, monkeypatch) -> None:
    """A port taken between the probe and the bind (by a parallel kernel) costs a retry, not a failure."""
    import socket

    from browser import lab_server

    squatter = socket.socket()
    squatter.bind(("127.0.0.1", 0))
    squatter.listen()
    taken = squatter.getsockname()[1]
    ports = iter([taken])
    real_free_port = lab_server._free_port
    monkeypatch.setattr(lab_server, "_free_port", lambda: next(ports, None) or real_free_port())
    server = LabServer(copy_course(REPO, tmp_path / "course"), tmp_path / "home", REPO)
    try:
        server.start()
        assert server.port != taken
        assert server.api("GET", "/api/status") is not None
    finally:
        server.stop()
        squatter.close()
