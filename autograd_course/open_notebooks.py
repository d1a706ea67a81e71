"""Which running Jupyter servers have a notebook open: asked through their REST API (/api/sessions).

`reset` uses it to warn that the copy open in JupyterLab, once saved, would undo the reset.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterable
from pathlib import Path

__all__ = ["open_in", "running_servers"]


def running_servers() -> list[dict]:
    """The info of the Jupyter servers running for this user (none without jupyter_server installed)."""
    try:
        from jupyter_server.serverapp import list_running_servers
    except ImportError:
        return []
    return list(list_running_servers())


def _sessions(info: dict, timeout: float) -> list[dict]:
    """One server's sessions (a kernel per open notebook)."""
    request = urllib.request.Request(info["url"].rstrip("/") + "/api/sessions")
    if info.get("token"):
        request.add_header("Authorization", f"token {info['token']}")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        data = json.load(response)
    return data if isinstance(data, list) else []


def open_in(target: Path, servers: Iterable[dict] | None = None, timeout: float = 2.0) -> list[str]:
    """The URLs of the servers that have target open; a server that does not answer is left out."""
    found = []
    for info in running_servers() if servers is None else servers:
        root = info.get("root_dir") or info.get("notebook_dir")
        try:
            relative = target.resolve().relative_to(Path(root).resolve()).as_posix()
            sessions = _sessions(info, timeout)
        except (KeyError, TypeError, ValueError, OSError):
            continue
        if any(isinstance(s, dict) and s.get("path") == relative for s in sessions):
            found.append(info["url"])
    return found
