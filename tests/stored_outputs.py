"""Strict nbval's verdict on a notebook that was run somewhere else (the browser tests' Run All).

nbval runs a notebook in a kernel of its own and compares each code cell's outputs with the stored ones.
The browser tests already run every notebook in JupyterLab, in this environment and CPU corner; judging
that run's outputs by nbval's rules makes a second execution unnecessary (tests/conftest.py leaves out
nbval's own items for the notebooks a browser test will judge). These are nbval 0.11's rules, kept
side by side with nbval by tests/test_stored_outputs.py, which runs both on the same notebooks:

- a cell marked `nbval-skip` (tag) or `# NBVAL_SKIP` is not run by nbval, but a Run All runs it: such a
  notebook is reported here, to be judged by nbval itself;
- a cell that raised fails, unless marked `raises-exception` / `# NBVAL_RAISES_EXCEPTION`;
- a stored cell that never ran (no execution count) must have no outputs;
- otherwise its outputs must equal the stored ones (unless `nbval-ignore-output` / `# NBVAL_IGNORE_OUTPUT`):
  streams of one name joined (carriage returns applied, backspaces left as they are), every string
  passed through the sanitizers, keys nbval skips left out (metadata, images, widget views, counts),
  and for each remaining key (a stream's name, a MIME type, an error's name and value) the same values
  in order.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["NBVAL_RULES", "NBVAL_SANITIZERS", "ROOT", "Difference", "differences", "sanitizers"]

ROOT = Path(__file__).resolve().parent.parent


def _nbval_sanitizers() -> Path:
    """The sanitize file pyproject.toml's addopts give nbval: the same rules for both judges."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]
    (path,) = [o.split("=", 1)[1] for o in options if o.startswith("--nbval-sanitize-with=")]
    return ROOT / path


NBVAL_SANITIZERS = _nbval_sanitizers()

# nbval.plugin.IPyNbFile.skip_compare without --nbdime: never compared.
SKIPPED = frozenset(
    {
        "metadata",
        "traceback",
        "prompt_number",
        "output_type",
        "name",
        "execution_count",
        "application/vnd.jupyter.widget-view+json",
        "image/png",
        "image/jpeg",
    }
)
# nbval's markers: a comment line in the cell, or its tag (the comment's name in lower case with dashes).
# Each sets one option; a later marker of the same option wins, and comments win over tags.
COMMENTS = {
    "PYTEST_VALIDATE_IGNORE_OUTPUT": ("check", False),
    "NBVAL_IGNORE_OUTPUT": ("check", False),
    "NBVAL_CHECK_OUTPUT": ("check", True),
    "NBVAL_RAISES_EXCEPTION": ("raises", True),
    "NBVAL_SKIP": ("skip", True),
}
TAGS = {name.lower().replace("_", "-"): option for name, option in COMMENTS.items()} | {
    "raises-exception": ("raises", True)
}
_CARRIAGE_RETURN = re.compile(r"^.*\r(?=[^\n])", re.MULTILINE)


@dataclass(frozen=True)
class Difference:
    """Why one cell fails strict nbval: its index among all cells, and what differs."""

    cell: int
    why: str

    def __repr__(self) -> str:
        return f"Difference(cell {self.cell}: {self.why[:80]!r})"

    def __str__(self) -> str:
        return f"cell {self.cell}: {self.why}"


def sanitizers(*files: Path) -> list[tuple[str, str]]:
    """(regex, replacement) pairs of nbval sanitize files, in order (nbval's `regex:` / `replace:` lines)."""
    pairs: list[tuple[str, str]] = []
    for file in files:
        pairs += re.findall(r"^regex: (.*)$\n^replace: (.*)$", file.read_text(), flags=re.MULTILINE)
    return pairs


# The rules strict nbval applies here, read once.
NBVAL_RULES = sanitizers(NBVAL_SANITIZERS)


def _options(cell: dict) -> dict[str, bool]:
    """The cell's nbval options: check (compare outputs), raises (may raise), skip (not run)."""
    options = {"check": True, "raises": False, "skip": False}
    options |= dict(TAGS[t] for t in cell.get("metadata", {}).get("tags", []) if t in TAGS)
    comments = (
        line.strip().lstrip("#").strip()
        for line in _source(cell).splitlines()
        if line.strip().startswith("#")
    )
    options |= dict(COMMENTS[c] for c in comments if c in COMMENTS)
    return options


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _text(value: Any) -> Any:
    return "".join(value) if isinstance(value, list) else value


def _coalesced(outputs: list[dict]) -> list[dict]:
    """Streams of one name joined into the first, with carriage returns applied (a line's text before one
    is dropped)."""
    joined: list[dict] = []
    streams: dict[str, dict] = {}
    for output in outputs:
        if output.get("output_type") != "stream":
            joined.append(output)
        elif output["name"] in streams:
            streams[output["name"]]["text"] += _text(output["text"])
        else:
            streams[output["name"]] = {
                "output_type": "stream",
                "name": output["name"],
                "text": _text(output["text"]),
            }
            joined.append(streams[output["name"]])
    for stream in streams.values():  # nbval 0.11 means to apply backspaces too, but its loop never runs
        stream["text"] = _CARRIAGE_RETURN.sub("", stream["text"])
    return joined


def _flattened(outputs: list[dict], rules: list[tuple[str, str]]) -> dict[str, list[Any]]:
    """Key -> values in order: a stream's text under its name, each MIME type, each other field."""

    def clean(value: Any) -> Any:
        value = _text(value)
        if isinstance(value, str):
            for regex, replacement in rules:
                value = re.sub(regex, replacement, value)
        return value

    flat: dict[str, list[Any]] = defaultdict(list)
    for output in outputs:
        if output.get("output_type") == "stream":
            flat[output["name"]].append(clean(output["text"]))
            continue
        for key, value in output.items():
            if key == "data":
                for mime, content in value.items():
                    if mime not in SKIPPED:
                        flat[mime].append(clean(content))
            elif key not in SKIPPED:
                flat[key].append(clean(value))
    return flat


def _diff(old: Any, new: Any) -> str:
    """The changed lines of two values, as a unified diff (stored first)."""
    lines = difflib.unified_diff(
        str(old).splitlines(), str(new).splitlines(), "stored", "ran", n=1, lineterm=""
    )
    return "\n".join(list(lines)[:40])


def _compared(ran: list[dict], stored: list[dict], rules: list[tuple[str, str]]) -> str:
    """'' when nbval would call the outputs equal, else what differs first."""
    got, want = _flattened(_coalesced(ran), rules), _flattened(_coalesced(stored), rules)
    if set(want) - set(got):
        return f"missing output fields from running code: {sorted(set(want) - set(got))}"
    if set(got) - set(want):
        return f"unexpected output fields from running code: {sorted(set(got) - set(want))}"
    for key, expected in want.items():
        if len(got[key]) != len(expected):
            return f"{len(got[key])} outputs of {key!r} where {len(expected)} are stored"
        for new, old in zip(got[key], expected):
            if new != old:
                return f"{key!r} differs:\n" + _diff(old, new)
    return ""


def differences(stored: dict, ran: dict, rules: list[tuple[str, str]]) -> list[Difference]:
    """Every code cell of `ran` (a notebook's JSON after a run) that strict nbval would fail against
    `stored` (the committed notebook's JSON); [] when nbval would pass the notebook."""
    if len(stored["cells"]) != len(ran["cells"]):
        return [Difference(-1, f"{len(ran['cells'])} cells ran where {len(stored['cells'])} are stored")]
    found = []
    for i, (old, new) in enumerate(zip(stored["cells"], ran["cells"])):
        if old.get("cell_type") != "code":
            continue
        options = _options(old)
        if options["skip"]:  # nbval would not run it; a Run All did, and what came after may differ
            found.append(Difference(i, "marked nbval-skip: only nbval itself can judge this notebook"))
            continue
        errors = [o for o in new.get("outputs", []) if o.get("output_type") == "error"]
        if errors and not options["raises"]:
            found.append(
                Difference(i, f"the cell raised {errors[0].get('ename')}: {errors[0].get('evalue')}")
            )
            continue
        if old.get("execution_count") is None:
            if old.get("outputs"):
                found.append(Difference(i, "an unrun stored cell has outputs"))
            continue
        if not options["check"]:
            continue
        why = _compared(new.get("outputs", []), old.get("outputs", []), rules)
        if why:
            found.append(Difference(i, why))
    return found
