"""The toolkit's import name `helpers`: a learner's own helpers.py must not silently replace it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _import_in(folder: Path, code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # `python -c` puts the working folder first on sys.path, as Jupyter does with a notebook's folder
    return subprocess.run(
        [sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("shadow", ["helpers.py", "helpers/__init__.py"])
def test_a_learners_helpers_beside_the_lesson_stops_the_setup_naming_the_file(tmp_path, shadow):
    path = tmp_path / shadow
    path.parent.mkdir(exist_ok=True)
    path.write_text("print('the learner code ran')\n")
    done = _import_in(tmp_path, "import autograd_course.yourturn")
    assert done.returncode != 0
    assert "ToolkitShadowedError" in done.stderr
    assert str(path.resolve()) in done.stderr and "rename yours" in done.stderr
    assert "the learner code ran" not in done.stdout  # found, not imported


def test_the_course_toolkit_passes_the_check(tmp_path):
    done = _import_in(tmp_path, "import autograd_course.yourturn, helpers; print(helpers.__file__)")
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) == ROOT / "helpers" / "__init__.py"


def test_an_already_imported_stranger_named_helpers_is_refused(monkeypatch):
    from autograd_course.toolkit import ToolkitShadowedError, require_toolkit

    stranger = type(sys)("helpers")
    stranger.__file__ = "/somewhere/site-packages/helpers/__init__.py"
    monkeypatch.setitem(sys.modules, "helpers", stranger)
    with pytest.raises(ToolkitShadowedError, match=re.escape(stranger.__file__)):
        require_toolkit()


def _names_the_course_imports() -> set[str]:
    """Names taken from `helpers` (`from helpers import ...`, `helpers.X`) in lessons and the package."""
    names: set[str] = set()
    for folder in ("notebooks", "solutions", "exercises", "autograd_course"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix == ".ipynb":
                cells = json.loads(path.read_text())["cells"]
                sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
            elif path.suffix == ".py":
                sources = [path.read_text()]
            else:
                continue
            for source in (re.sub(r"#[^\n]*", "", s) for s in sources):  # comments name no import
                for m in re.finditer(r"from helpers import (?:\(([^)]*)\)|([^\n]*))", source):
                    names |= set(re.findall(r"\b[A-Za-z_]\w*\b", m[1] or m[2]))
                names |= set(re.findall(r"\bhelpers\.(?!py\b)([A-Za-z]\w*)", source))
    submodules = {p.stem for p in (ROOT / "helpers").glob("*.py")} | {
        p.parent.name for p in (ROOT / "helpers").glob("*/__init__.py")
    }
    return names - submodules  # `helpers.gradients` names a module, not an exported name


def test_helpers_exports_exactly_what_the_course_imports():
    import helpers

    used = _names_the_course_imports()
    assert {"diagnose", "watch_non_finite", "gradient_report", "Stage"} <= used
    assert set(helpers.__all__) == used
    assert all(hasattr(helpers, name) for name in used)
