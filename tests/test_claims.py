"""The claims ledger (docs/claims.toml): each claim a lesson makes about PyTorch has a cell that shows it."""

from __future__ import annotations

import ast
import json
import re
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from autograd_course import COURSE_MAP

ROOT = Path(__file__).resolve().parent.parent
LEDGER = ROOT / "docs" / "claims.toml"
FIELDS = {"lesson", "claim", "prose", "cell", "checked_on"}
CLAIMS: list[dict[str, Any]] = tomllib.loads(LEDGER.read_text(encoding="utf-8"))["claim"]


def supported_torch() -> tuple[str, ...]:
    """noxfile.py's TORCH_VERSIONS, read as source (nox need not be installed)."""
    for node in ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [
            "TORCH_VERSIONS"
        ]:
            return tuple(ast.literal_eval(node.value))
    raise AssertionError("noxfile.py defines no TORCH_VERSIONS")


@cache
def cells(lesson: str) -> list[dict[str, Any]]:
    """The cells of notebooks/NN_*.ipynb."""
    (path,) = sorted((ROOT / "notebooks").glob(f"{lesson}_*.ipynb"))
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def text(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def one_line(words: str) -> str:
    return re.sub(r"\s+", " ", words).strip()


def shows(source: str) -> bool:
    """Whether code asserts: an `assert`, or a `with expect_error(...)` block (it fails unless raised)."""
    code = "\n".join("pass" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.With):
            calls = [item.context_expr for item in node.items if isinstance(item.context_expr, ast.Call)]
            names = {getattr(c.func, "id", getattr(c.func, "attr", None)) for c in calls}
            if "expect_error" in names:
                return True
    return False


def claim_id(claim: dict[str, Any]) -> str:
    return f"lesson {claim.get('lesson')}, cell {claim.get('cell')}, {claim.get('prose', '')[:40]!r}"


IDS = [f"{claim.get('lesson')}-{claim.get('cell')}-{i}" for i, claim in enumerate(CLAIMS)]


def test_shows_finds_asserts_and_expected_errors_not_prints():
    assert shows("x = 1\nassert x == 1")
    assert shows('with expect_error(RuntimeError, "boom"):\n    f()')
    assert shows("%time f()\nif True:\n    assert f()")
    assert not shows("print(x == 1)\nx == 1")
    assert not shows("with open('f') as handle:\n    handle.read()")


def test_every_claim_is_complete_and_checked_on_a_supported_torch():
    lessons = {lesson.number for lesson in COURSE_MAP}
    supported = set(supported_torch())
    for claim in CLAIMS:
        assert set(claim) == FIELDS, f"{claim_id(claim)}: fields {sorted(claim)}, expected {sorted(FIELDS)}"
        assert claim["lesson"] in lessons, claim_id(claim)
        assert claim["claim"].strip() and claim["prose"].strip(), claim_id(claim)
        assert claim["checked_on"] and set(claim["checked_on"]) <= supported, (
            f"{claim_id(claim)}: checked_on {claim['checked_on']}, supported {sorted(supported)}"
        )


def test_every_lesson_lists_a_claim():
    listed = {claim["lesson"] for claim in CLAIMS}
    assert [lesson.number for lesson in COURSE_MAP if lesson.number not in listed] == []


@pytest.mark.parametrize("claim", CLAIMS, ids=IDS)
def test_a_claims_cell_exists_and_asserts_it(claim):
    found = [c for c in cells(claim["lesson"]) if c.get("id") == claim["cell"]]
    assert found, f"lesson {claim['lesson']} has no cell {claim['cell']} (claim: {claim['claim']})"
    assert found[0]["cell_type"] == "code", f"cell {claim['cell']} is not a code cell"
    assert shows(text(found[0])), f"cell {claim['cell']} of lesson {claim['lesson']} asserts nothing"


@pytest.mark.parametrize("claim", CLAIMS, ids=IDS)
def test_the_lesson_still_says_it(claim):
    prose = one_line(" ".join(text(c) for c in cells(claim["lesson"]) if c["cell_type"] == "markdown"))
    assert one_line(claim["prose"]) in prose, (
        f"lesson {claim['lesson']} no longer says {claim['prose']!r}: update docs/claims.toml with the prose"
    )
