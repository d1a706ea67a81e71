"""tests/stored_outputs.py gives strict nbval's verdict: nbval itself, run on the same stored notebooks,
fails exactly the cells it fails.

A block of cells (streams, carriage returns, backspaces, HTML, an object's address, random output
marked ignored, an exception tagged as expected, stderr) is repeated once per variant below, and the
notebook is run once with nbclient. Each variant changes one cell's stored outputs in its own block,
the way a real regression or a harmless rerun would. nbval runs the changed notebook in a child
pytest; stored_outputs judges it against the one nbclient run.
"""

from __future__ import annotations

import copy
import re
import subprocess
import sys
from collections.abc import Callable

import nbformat
import pytest
from browser.chromium import chromium_problem
from nbclient import NotebookClient
from stored_outputs import NBVAL_RULES, NBVAL_SANITIZERS, ROOT, differences

pytestmark = pytest.mark.slow

CELLS = [
    ("md", "A notebook with every kind of output nbval compares."),
    ("code", "import sys\nprint('a')\nsys.stdout.flush()\nprint('b')"),
    ("code", "print('progress 1\\r', end='')\nprint('progress 2')\nprint('xy\\bz')"),
    ("code", "from IPython.display import HTML, display\ndisplay(HTML('<b>bold</b>'))"),
    ("code", "object()"),
    ("code", "# NBVAL_IGNORE_OUTPUT\nimport random\nprint(random.random())"),
    ("code", "1 / 0"),
    ("code", "print('careful', file=sys.stderr)"),
    ("code", "6 * 7"),
]
RAISES = 6  # tagged raises-exception


def _set_text(cell: dict, text: str, index: int = 0) -> None:
    """Output `index`'s text, or for a stream the whole stream's: a loaded kernel may have split it into
    several outputs, and a change to the first alone would leave the rest behind it."""
    output = cell["outputs"][index]
    if output["output_type"] == "stream":
        output["text"] = text
        cell["outputs"] = [o for o in cell["outputs"] if o is output or o.get("name") != output["name"]]
    else:
        output["data"]["text/plain" if "text/plain" in output["data"] else "text/html"] = text


def _html_only_plain(cell: dict) -> None:
    del cell["outputs"][0]["data"]["text/html"]


def _split_stream(cell: dict) -> None:
    text = "".join(o["text"] for o in cell["outputs"])
    cell["outputs"] = [
        nbformat.v4.new_output("stream", name="stdout", text=line) for line in text.splitlines(True)
    ]


def _other_address(cell: dict) -> None:
    data = cell["outputs"][0]["data"]
    data["text/plain"] = re.sub(r"0x[0-9a-f]+", "0xdeadbeef00", data["text/plain"])


def _unrun(outputs: bool) -> Callable[[dict], None]:
    def change(cell: dict) -> None:
        cell["execution_count"] = None
        cell["outputs"] = cell["outputs"] if outputs else []

    return change


def _untagged(cell: dict) -> None:
    cell["metadata"]["tags"] = []


def _doubled(cell: dict) -> None:
    cell["outputs"] = cell["outputs"] * 2


def _metadata(cell: dict) -> None:
    cell["outputs"][0]["metadata"] = {"isolated": True}


# name: (cell index, change to its stored outputs, whether nbval fails that cell)
VARIANTS: dict[str, tuple[int, Callable[[dict], None] | None, bool]] = {
    "as-run": (1, None, False),
    "stream-changed": (1, lambda c: _set_text(c, "a\nB\n"), True),
    "stream-split-otherwise": (1, _split_stream, False),
    "carriage-return-applied": (2, lambda c: _set_text(c, "progress 2\nxy\bz\n"), False),
    "backspace-applied": (2, lambda c: _set_text(c, "progress 2\nxz\n"), True),  # nbval leaves them
    "html-changed": (3, lambda c: _set_text(c, "<i>bold</i>"), True),
    "html-missing": (3, _html_only_plain, True),
    "address-sanitized": (4, _other_address, False),
    "ignored-output-changed": (5, lambda c: _set_text(c, "0.5\n"), False),
    "exception-untagged": (RAISES, _untagged, True),
    "stderr-changed": (7, lambda c: _set_text(c, "careless\n"), True),
    "unrun-with-outputs": (8, _unrun(outputs=True), True),
    "unrun-without-outputs": (8, _unrun(outputs=False), False),
    "result-doubled": (8, _doubled, True),
    "metadata-changed": (8, _metadata, False),
}


def _notebook(blocks: int = 1) -> nbformat.NotebookNode:
    """CELLS `blocks` times over (block k's cell i is cell k * len(CELLS) + i), each block on its own."""
    nb = nbformat.v4.new_notebook()
    for _ in range(blocks):
        for kind, source in CELLS:
            nb.cells.append(
                nbformat.v4.new_markdown_cell(source) if kind == "md" else nbformat.v4.new_code_cell(source)
            )
        nb.cells[-len(CELLS) + RAISES].metadata["tags"] = ["raises-exception"]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[set[int], set[int]]]:
    """Variant -> (cells of its block nbval fails, cells of its block stored_outputs fails), as indices
    within CELLS. One notebook holds a block per variant, so nbclient and nbval each start one kernel."""
    folder = tmp_path_factory.mktemp("stored-outputs")
    ran = _notebook(len(VARIANTS))
    # killed at the end, as the course's own runs do: a graceful stop waits for the kernel to go
    NotebookClient(ran, kernel_name="python3", timeout=60, shutdown_kernel="immediate").execute()
    stored = copy.deepcopy(ran)
    for k, (index, change, _) in enumerate(VARIANTS.values()):
        if change is not None:
            change(stored.cells[k * len(CELLS) + index])
    nbformat.write(stored, folder / "variants.ipynb")
    nbval = ["--nbval", "--nbval-current-env", f"--nbval-sanitize-with={NBVAL_SANITIZERS}"]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rA",
            "-o",
            "addopts=",
            "-p",
            "no:cacheprovider",
            *nbval,
            ".",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    code = [i for i, cell in enumerate(ran.cells) if cell.cell_type == "code"]  # nbval's Cell k: code cell k
    by_nbval = {code[int(k)] for k in re.findall(r"^FAILED \S+::Cell (\d+)", done.stdout, flags=re.MULTILINE)}
    passed = re.findall(r"^PASSED ", done.stdout, flags=re.MULTILINE)
    assert len(passed) + len(by_nbval) == len(code), done.stdout[-3000:]
    by_us = {d.cell for d in differences(stored, ran, NBVAL_RULES)}
    blocks = {name: range(k * len(CELLS), (k + 1) * len(CELLS)) for k, name in enumerate(VARIANTS)}
    return {
        name: (
            {i - cells.start for i in by_nbval if i in cells},
            {i - cells.start for i in by_us if i in cells},
        )
        for name, cells in blocks.items()
    }


@pytest.mark.parametrize("name", VARIANTS)
def test_stored_outputs_fails_the_cells_nbval_fails(verdicts, name: str) -> None:
    index, _, fails = VARIANTS[name]
    by_nbval, by_us = verdicts[name]
    assert by_nbval == ({index} if fails else set())  # the variant tests what it says it tests
    assert by_us == by_nbval


def test_a_stream_split_by_a_loaded_kernel_is_judged_as_one_and_its_variants_mean_what_they_say() -> None:
    """CI at bf92543: a loaded kernel sent `progress 1\\r` apart from the rest, and the carriage-return
    variant, which changed only the first output, left the rest behind it. No kernel here."""
    stored, ran = _notebook(), _notebook()
    ran.cells[2].outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="progress 1\r"),
        nbformat.v4.new_output("stream", name="stdout", text="progress 2\nxy\bz\n"),
    ]
    stored.cells[2].outputs = copy.deepcopy(ran.cells[2].outputs)
    stored.cells[2].execution_count = ran.cells[2].execution_count = 1
    _set_text(stored.cells[2], "progress 2\nxy\bz\n")  # carriage return applied: the same
    assert len(stored.cells[2].outputs) == 1 and not differences(stored, ran, [])
    _set_text(stored.cells[2], "progress 2\nxz\n")  # backspace applied: nbval leaves them, so a change
    assert [d.cell for d in differences(stored, ran, [])] == [2]


def test_a_notebook_with_a_cell_nbval_skips_is_left_to_nbval() -> None:
    nb = _notebook()
    nb.cells[5].metadata["tags"] = ["nbval-skip"]
    (found,) = differences(nb, nb, [])
    assert found.cell == 5 and "nbval itself" in found.why


def test_a_notebook_that_ran_other_cells_fails_as_a_whole() -> None:
    nb, shorter = _notebook(), _notebook()
    del shorter.cells[3]
    (found,) = differences(nb, shorter, [])
    assert "8 cells ran where 9 are stored" in found.why


def _collected(*args: str) -> list[str]:
    """The test ids `pytest --collect-only` selects for `args`, with nbval on (other addopts off)."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--collect-only",
        "-q",
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=--nbval",
    ]
    done = subprocess.run([*command, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return [line for line in done.stdout.splitlines() if "::" in line]


@pytest.mark.skipif(bool(chromium_problem()), reason="without Chromium, nbval keeps every notebook")
def test_nbval_leaves_a_notebook_to_the_browser_test_that_judges_it_and_only_then() -> None:
    solution, browser = "solutions/A_detached_output.ipynb", "tests/browser/test_browser_solutions.py"
    both = _collected(solution, browser)
    assert not [i for i in both if i.startswith(solution)]
    assert f"{browser}::test_solution_in_jupyterlab[{solution}]" in both
    without_browser = _collected(solution, browser, "-m", "not browser")
    assert [i for i in without_browser if i.startswith(solution)]  # nbval's cells, since nothing else runs it
    assert not [i for i in without_browser if i.startswith(browser)]
