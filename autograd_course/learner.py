"""Who the learner is: the id that draws their exercise variants, kept in a workspace's course.json.

Torch-free on purpose: `autograd-course start` and `progress` read it without importing the course.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from autograd_course.protocol import LEARNER_ENV, LEARNER_FILE

HUB_USER_ENV = "JUPYTERHUB_USER"  # set by JupyterHub in every single-user server and its kernels

__all__ = ["LEARNER_ENV", "LEARNER_FILE", "read_learner", "recorded_learner", "write_learner"]


def recorded_learner(workspace: str | Path) -> str | None:
    """The learner recorded in this folder's course.json (no env, no parent folders), or None."""
    try:
        learner = json.loads((Path(workspace) / LEARNER_FILE).read_text(encoding="utf-8")).get("learner")
    except (OSError, ValueError, AttributeError):
        return None
    return learner.strip() if isinstance(learner, str) and learner.strip() else None


def read_learner(start_dir: str | Path | None = None) -> str | None:
    """The learner: $AUTOGRAD_COURSE_LEARNER, else the nearest course.json, else $JUPYTERHUB_USER (a hub)."""
    env = os.environ.get(LEARNER_ENV, "").strip()
    if env:
        return env
    here = Path(start_dir if start_dir is not None else Path.cwd()).resolve()
    for folder in (here, *here.parents):
        marker = folder / LEARNER_FILE
        if marker.is_file():
            try:
                learner = json.loads(marker.read_text(encoding="utf-8")).get("learner")
            except (OSError, ValueError, AttributeError):
                return None
            return learner.strip() if isinstance(learner, str) and learner.strip() else None
    return os.environ.get(HUB_USER_ENV, "").strip() or None


def write_learner(workspace: str | Path, learner: str) -> Path:
    """Record the learner in workspace/course.json (other keys in the file are kept)."""
    if not isinstance(learner, str) or not learner.strip():
        raise ValueError(f"expected a learner id (a non-empty string), got {learner!r}")
    path = Path(workspace) / LEARNER_FILE
    data: dict = {}
    if path.is_file():
        try:
            loaded = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise ValueError(f"{path} is not valid JSON; fix or remove it first") from exc
        if not isinstance(loaded, dict):
            raise ValueError(f"{path} must hold a JSON object")
        data = loaded
    data["learner"] = learner.strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path
