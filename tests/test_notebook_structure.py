"""Every course notebook follows CONTRIBUTING.md's conventions; pure JSON reading, no kernels."""

from __future__ import annotations

import ast
import json
import re
import shlex
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from autograd_course.course import COURSE_MAP

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
TITLES = {lesson.number: lesson.title for lesson in COURSE_MAP}
ERROR_SECTION = ("Symptom", "Reproduce", "Evidence", "Fix", "Check")
# Density: a lesson a learner can hold in mind; support code lives in the package.
MAX_CELLS, MAX_CODE_CELLS = 45, 30
MIN_ACTIVITIES = 2
# The only cell tags a lesson may carry: papermill's, the setup cell and nbval's ignore-output marker
# (never nbval-skip: every lesson is judged from one Run All, tests/stored_outputs.py).
ALLOWED_TAGS = {"parameters", "setup", "nbval-ignore-output"}
# What JupyterLab writes when a python3 kernel starts: stored the same, opening a lesson changes nothing.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
LANGUAGE_INFO_KEYS = {
    "codemirror_mode",
    "file_extension",
    "mimetype",
    "name",
    "nbconvert_exporter",
    "pygments_lexer",
}
WIDGET_REPR = re.compile(
    r"^(VBox|HBox|Box|interactive|IntSlider|FloatSlider|Dropdown|ToggleButtons|Checkbox)\("
)
# The lessons whose idea a learner explores best with a slider (gradient growth, grad modes, clipping).
WIDGET_NOTEBOOKS = ("02", "05", "10")

by_name = pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])


@cache
def load(path: Path) -> dict[str, Any]:
    """The notebook's JSON, read once per test session."""
    return json.loads(path.read_text(encoding="utf-8"))


def source(cell: dict[str, Any]) -> str:
    """A cell's source as one string (nbformat stores a string or a list of lines)."""
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else text


def code_cells(nb: dict[str, Any]) -> list[dict[str, Any]]:
    """The notebook's code cells, in order."""
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def headings(markdown: str) -> list[tuple[int, str]]:
    """(level, text) of each Markdown heading, skipping lines inside ``` fences."""
    found, fenced = [], False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        match = re.match(r"^(#{1,6})\s+(.*?)\s*$", line)
        if match and not fenced:
            found.append((len(match.group(1)), match.group(2)))
    return found


def outline(nb: dict[str, Any]) -> list[tuple[int, str, int]]:
    """(level, heading text, cell index) for every heading of every Markdown cell."""
    return [
        (level, text, i)
        for i, cell in enumerate(nb["cells"])
        if cell["cell_type"] == "markdown"
        for level, text in headings(source(cell))
    ]


def has_assert(code: str) -> bool:
    """Whether the code holds an assert statement (IPython magics and shell lines skipped)."""
    lines = [line for line in code.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return re.search(r"^\s*assert\b", code, re.MULTILINE) is not None
    return any(isinstance(node, ast.Assert) for node in ast.walk(tree))


def number(path: Path) -> str:
    """The two-digit course number of a notebook file."""
    return path.name[:2]


def test_the_course_has_notebooks() -> None:
    assert NOTEBOOKS, "notebooks/ holds no NN_topic.ipynb files"


@by_name
def test_number_is_in_the_course_map(path: Path) -> None:
    assert number(path) in TITLES, f"{path.name}: {number(path)} is not in COURSE_MAP {sorted(TITLES)}"


@by_name
def test_title_and_goal(path: Path) -> None:
    nb = load(path)
    first = nb["cells"][0]
    assert first["cell_type"] == "markdown", f"{path.name}: the first cell must be the Markdown title"
    title = f"# {number(path)} · {TITLES.get(number(path), '?')}"
    assert source(first).splitlines()[0].strip() == title, f"{path.name}: first line must be {title!r}"
    texts = [(level, text) for level, text, _ in outline(nb)]
    assert (2, "Goal") in texts, f"{path.name}: no '## Goal' section"


@by_name
def test_parameters_cell_declares_typed_seed_and_device(path: Path) -> None:
    nb = load(path)
    tagged = [c for c in code_cells(nb) if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, f"{path.name}: expected one code cell tagged 'parameters', found {len(tagged)}"
    code = source(tagged[0])
    annotated = {
        node.target.id: ast.unparse(node.annotation)
        for node in ast.parse(code).body
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
    }
    assert annotated.get("seed") == "int", f"{path.name}: parameters cell needs `seed: int = ...`"
    assert annotated.get("device") == "str", f"{path.name}: parameters cell needs `device: str = ...`"
    for name in ("seed", "device"):
        line = next(line for line in code.splitlines() if line.startswith(f"{name}:"))
        assert "#" in line, f"{path.name}: the {name} parameter needs a comment saying what it does"
    later = "\n".join(source(c) for c in code_cells(nb) if c is not tagged[0])
    assert re.search(r"manual_seed\(\s*seed\b", later), f"{path.name}: seed is never passed to manual_seed"
    assert re.search(r"\bdevice\b", later), f"{path.name}: the device parameter is never used"


@by_name
def test_executed_in_order_without_errors(path: Path) -> None:
    nb = load(path)
    counts = [c.get("execution_count") for c in code_cells(nb)]
    missing = [i for i, n in enumerate(counts) if n is None]
    assert not missing, f"{path.name}: code cells {missing} were never executed (store the notebook executed)"
    assert counts == sorted(counts) and len(set(counts)) == len(counts), (
        f"{path.name}: execution counts {counts} are not increasing; run all cells top to bottom"
    )
    assert any(c.get("outputs") for c in code_cells(nb)), f"{path.name}: no stored outputs"
    errors = [
        (i, out.get("ename"))
        for i, c in enumerate(code_cells(nb))
        for out in c.get("outputs", [])
        if out.get("output_type") == "error"
    ]
    assert not errors, f"{path.name}: error outputs in code cells {errors}"


def tags(cell: dict[str, Any]) -> list[str]:
    """A cell's metadata tags."""
    return list(cell.get("metadata", {}).get("tags", []))


@by_name
def test_nbval_markers_are_metadata_tags_not_comments(path: Path) -> None:
    nb = load(path)
    for i, cell in enumerate(nb["cells"]):
        bad = sorted(set(tags(cell)) - ALLOWED_TAGS)
        assert not bad, (
            f"{path.name} cell {i}: tags {bad}; allowed {sorted(ALLOWED_TAGS)} (errors use expect_error)"
        )
        markers = (
            sorted(set(re.findall(r"NBVAL_[A-Z_]+", source(cell)))) if cell["cell_type"] == "code" else []
        )
        assert not markers, (
            f"{path.name} cell {i}: {markers} in the source; tag the cell 'nbval-ignore-output'"
        )


@by_name
def test_density(path: Path) -> None:
    cells = load(path)["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    assert len(cells) <= MAX_CELLS, (
        f"{path.name}: {len(cells)} cells, at most {MAX_CELLS} (move support code out)"
    )
    assert len(code) <= MAX_CODE_CELLS, f"{path.name}: {len(code)} code cells, at most {MAX_CODE_CELLS}"


def activity_roles(nb: dict[str, Any]) -> dict[str, list[str]]:
    """Activity id -> the roles of its cells, in order."""
    found: dict[str, list[str]] = {}
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("autograd_course", {})
        if "yourturn" in meta:
            found.setdefault(meta["yourturn"], []).append(meta.get("role", "?"))
    return found


@by_name
def test_at_least_two_your_turn_activities_in_the_flow(path: Path) -> None:
    nb = load(path)
    roles = activity_roles(nb)
    complete = [a for a, r in roles.items() if r == ["answer", "check"] and a.startswith(f"{number(path)}.")]
    assert len(complete) >= MIN_ACTIVITIES, (
        f"{path.name}: activities {roles}; need {MIN_ACTIVITIES}, each an answer cell then a check cell"
    )
    summary = next(i for level, text, i in outline(nb) if (level, text) == (2, "Summary"))
    first_check = min(
        i
        for i, c in enumerate(nb["cells"])
        if c.get("metadata", {}).get("autograd_course", {}).get("role") == "check"
    )
    assert first_check < summary, (
        f"{path.name}: activities belong in the lesson's flow, not after the Summary"
    )


@by_name
def test_setup_cell_when_present_comes_first(path: Path) -> None:
    cells = code_cells(load(path))
    setup = [i for i, c in enumerate(cells) if "setup" in tags(c)]
    assert len(setup) <= 1, f"{path.name}: {len(setup)} cells tagged 'setup', expected at most one"
    if setup:
        assert setup[0] == 0, f"{path.name}: the setup cell must be the first code cell"


@by_name
def test_error_sections_follow_the_rhythm(path: Path) -> None:
    nb = load(path)
    heads = outline(nb)
    sections: list[list[tuple[int, str, int]]] = []
    for head in heads:
        if head[0] <= 2:
            sections.append([head])
        elif sections:
            sections[-1].append(head)
    checked = 0
    for section in sections:
        subs = [text for level, text, _ in section if level == 3]
        if "Reproduce" not in subs:
            continue
        checked += 1
        order = [s for s in subs if s in ERROR_SECTION]
        assert order == list(ERROR_SECTION), (
            f"{path.name} '## {section[0][1]}': sub-headings {order}, expected {list(ERROR_SECTION)} in order"
        )
    for k, (level, text, start) in enumerate(heads):
        if (level, text) != (3, "Check"):
            continue
        end = heads[k + 1][2] if k + 1 < len(heads) else len(nb["cells"])
        # a heading cell may also hold the next heading; the check code sits between them
        body = nb["cells"][start + 1 : max(end, start + 1)]
        assert any(c["cell_type"] == "code" and has_assert(source(c)) for c in body), (
            f"{path.name}: the '### Check' at cell {start} has no code cell with an assert"
        )
    if any(text == "Reproduce" for _, text, _ in heads):
        assert checked, f"{path.name}: '### Reproduce' outside a '## ' section"


@by_name
def test_ends_with_summary_and_next_link(path: Path) -> None:
    nb = load(path)
    level_two = [text for level, text, _ in outline(nb) if level == 2]
    assert level_two and level_two[-1] == "Summary", f"{path.name}: the last '## ' section must be Summary"
    last = nb["cells"][-1]
    assert last["cell_type"] == "markdown", f"{path.name}: the last cell must be Markdown"
    final = source(last).strip().splitlines()[-1].strip()
    match = re.fullmatch(r"Next: \[(.+)\]\((\S+)\)", final)
    assert match, f"{path.name}: last line {final!r} is not `Next: [NN · Title](NN_topic.ipynb)`"
    text, target = match.groups()
    if target.startswith("../exercises/"):
        return
    following = f"{int(number(path)) + 1:02d}"
    assert re.fullmatch(rf"{following}_[a-z0-9_]+\.ipynb", target), (
        f"{path.name}: Next links to {target!r}, expected {following}_*.ipynb or ../exercises/"
    )
    assert text == f"{following} · {TITLES.get(following, '?')}", f"{path.name}: link text {text!r}"
    landed = [p.name for p in NOTEBOOKS if number(p) == following]
    if landed:
        assert target in landed, f"{path.name}: Next links to {target!r} but the notebook is {landed}"


@by_name
def test_clean_metadata_that_opening_in_jupyterlab_does_not_change(path: Path) -> None:
    meta = load(path)["metadata"]
    assert meta.get("kernelspec") == KERNELSPEC, (
        f"{path.name}: kernelspec {meta.get('kernelspec')}, want {KERNELSPEC}"
    )
    info = meta.get("language_info", {})
    assert set(info) >= LANGUAGE_INFO_KEYS and info["name"] == "python", (
        f"{path.name}: language_info {info} lacks what the kernel reports {sorted(LANGUAGE_INFO_KEYS)}"
    )
    assert "widgets" not in meta, f"{path.name}: clear metadata.widgets (widget state blobs)"


@by_name
def test_widget_cells_are_tagged_and_store_no_raw_widget_text(path: Path) -> None:
    nb = load(path)
    for i, cell in enumerate(code_cells(nb)):
        code = source(cell)
        if re.search(r"\binteract(ive_output)?\(", code):
            assert "nbval-ignore-output" in tags(cell), (
                f"{path.name} code cell {i}: tag it 'nbval-ignore-output'"
            )
        if re.search(r"\bwidgets\.\w+\(.*\bdescription=", code):
            assert "description_width" in code, (
                f"{path.name} code cell {i}: widget labels need description_width"
            )
        for out in cell.get("outputs", []):
            text = out.get("data", {}).get("text/plain", "")
            text = "".join(text) if isinstance(text, list) else text
            assert not WIDGET_REPR.match(text), (
                f"{path.name} code cell {i}: stored output {text[:40]!r} is a widget repr; use show_widget"
            )


def imports_ipywidgets(path: Path) -> bool:
    """Whether any code cell of the notebook imports ipywidgets."""
    return any(
        re.search(r"^\s*(import ipywidgets|from ipywidgets import)", source(c), re.MULTILINE)
        for c in code_cells(load(path))
    )


@pytest.mark.parametrize("wanted", WIDGET_NOTEBOOKS)
def test_widget_notebooks_have_widgets(wanted: str) -> None:
    present = [p for p in NOTEBOOKS if number(p) == wanted]
    assert present, f"notebook {wanted} is missing from notebooks/"
    assert imports_ipywidgets(present[0]), f"{present[0].name}: this lesson teaches with a widget"


def test_course_has_widgets_in_three_notebooks() -> None:
    with_widgets = [p.name for p in NOTEBOOKS if imports_ipywidgets(p)]
    assert len(with_widgets) >= 3, f"widgets in {with_widgets}; the course needs them in at least three"


def test_course_has_a_mermaid_diagram() -> None:
    blocks = [
        p.name
        for p in NOTEBOOKS
        for c in load(p)["cells"]
        if c["cell_type"] == "markdown" and "```mermaid" in source(c)
    ]
    assert blocks, "no ```mermaid block in any notebook's Markdown"


def readme_test_command() -> str:
    """The command after the <!-- ci:test --> marker in README.md, as .ci/run reads it."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("<!-- ci:test -->")
    block = [line for line in lines[start + 1 :] if not line.startswith("```")]
    return block[0].strip()


def test_readme_test_command_runs_nbval_on_notebooks() -> None:
    command = shlex.split(readme_test_command())
    assert "pytest" in command, f"README test command {command} does not run pytest"
    assert not any("no:nbval" in arg or arg.startswith("--ignore") for arg in command), command
    paths = [a for a in command[command.index("pytest") + 1 :] if not a.startswith("-") and not a.isdigit()]
    assert not paths or "notebooks" in paths, f"README test command limits pytest to {paths}"
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]
    options = config["ini_options"]
    assert "notebooks" in options["testpaths"], f"pytest testpaths {options['testpaths']} skip notebooks/"
    assert "--nbval" in options["addopts"], "pytest addopts do not turn on strict nbval"
    assert not any("--nbval-lax" in a for a in options["addopts"]), "nbval must be strict, not --nbval-lax"


def test_readme_test_command_shows_the_slowest_tests() -> None:
    """Every CI run (.ci/run runs this command verbatim) ends with where its time went."""
    durations = [a for a in shlex.split(readme_test_command()) if a.startswith("--durations=")]
    assert len(durations) == 1 and int(durations[0].split("=", 1)[1]) >= 10, readme_test_command()
