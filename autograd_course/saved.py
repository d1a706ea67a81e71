"""What a saved notebook says without running it: its check cells and the activities it shows correct.

One reader for the learner's `progress` and the instructor's `class-progress`: both count from the
files the learner saved, by the same rules. No torch import.
"""

from __future__ import annotations

import json
from pathlib import Path

from autograd_course.protocol import ACTIVITY_MIME, META_KEY

__all__ = ["ARRIVAL_SLACK", "activities_correct", "check_cells", "outputs", "read_notebook"]

ARRIVAL_SLACK = 2.0  # seconds: files a clone or `start` writes land within this of the first one


def read_notebook(path: Path) -> dict:
    """A saved notebook's JSON, {} when it cannot be read (half-written, not a notebook)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def outputs(nb: dict, mime: str) -> list[dict]:
    """Every output payload of one MIME type in a notebook."""
    found = []
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []) if isinstance(cell, dict) else []:
            data = out.get("data", {}) if isinstance(out, dict) else {}
            if isinstance(data.get(mime), dict):
                found.append(data[mime])
    return found


def check_cells(nb: dict) -> int:
    """How many check cells a notebook has (one per activity or challenge part)."""
    roles = [c.get("metadata", {}).get(META_KEY, {}) for c in nb.get("cells", []) if isinstance(c, dict)]
    return sum(1 for r in roles if isinstance(r, dict) and r.get("role") == "check")


def activities_correct(nb: dict) -> set[str]:
    """The ids of the activities whose last shown verdict in the saved notebook says correct."""
    return {str(o.get("id")) for o in outputs(nb, ACTIVITY_MIME) if o.get("outcome") == "correct"}
