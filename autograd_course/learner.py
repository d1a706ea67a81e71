"""Who the learner is: the id that draws their exercise variants.

The one rule, everywhere: `start --seed ID` records ID in the workspace's course.json (what the
learner's kernel reads: `read_learner`) and stamps it into every exercise notebook's metadata
(`stamped_learner`). A notebook's stamp is the id it is checked and graded by, wherever the file
sits; a notebook without a stamp is graded by the id its folder or roster gives (`learner_for`).
Torch-free on purpose: `autograd-course start` and `progress` read it without importing the course.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from autograd_course.protocol import LEARNER_ENV, LEARNER_FILE, META_KEY

HUB_USER_ENV = "JUPYTERHUB_USER"  # set by JupyterHub in every single-user server and its kernels

__all__ = [
    "HUB_USER_ENV",
    "LEARNER_ENV",
    "LEARNER_FILE",
    "learner_for",
    "read_learner",
    "recorded_learner",
    "stamp_learner",
    "stamped_learner",
    "write_learner",
]


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


def stamped_learner(nb: dict | None) -> str | None:
    """The learner id stamped in a notebook's metadata by `start --seed`, or None."""
    meta = (nb or {}).get("metadata", {}).get(META_KEY, {}) if isinstance(nb, dict) else {}
    learner = meta.get("learner") if isinstance(meta, dict) else None
    return learner.strip() if isinstance(learner, str) and learner.strip() else None


def stamp_learner(nb: dict, learner: str) -> None:
    """Stamp the learner id into a notebook (in memory); nothing else of it changes."""
    nb.setdefault("metadata", {}).setdefault(META_KEY, {})["learner"] = learner


def learner_for(nb: dict | None, fallback: str | None) -> tuple[str | None, str]:
    """(the id to check or grade a notebook by, a note when its stamp and fallback disagree, else "").

    The stamp wins: it is what the learner's own kernel drew their variant with. fallback is the id
    the folder, roster or workspace gives; a different one is reported, never silently preferred.
    """
    stamp = stamped_learner(nb)
    if stamp is None:
        return fallback, ""
    if fallback is not None and fallback != stamp:
        note = f"stamped for learner {stamp!r} (start --seed) but found as {fallback!r}"
        return stamp, f"{note}: graded as {stamp!r}"
    return stamp, ""
