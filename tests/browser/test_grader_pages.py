"""The instructor's and learners' pages in Chromium at a laptop's 1366 px and a phone's 390 px: the
feedback page, the audit page and the room page never scroll sideways, and on a phone the audit's
checks and the room's learners read as labelled cards instead of a squeezed table."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from autograd_instructor.classroom.room import LearnerState
from autograd_instructor.classroom.views import room_html
from autograd_instructor.grading.grade import Record
from autograd_instructor.grading.results import write_results

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LONG = "fc1.weight_with_a_name_that_never_breaks_" * 4
TRAIL = {
    "ran": [
        f"run 1: the fixed functions in your code, trained on bug D in your own code shape, seed {k}"
        for k in (1, 2)
    ],
    "printed": "gradient report " + "x" * 300 + "\n",
    "returned": f"run 1: loss 0.78 -> 0.78 in 40 steps; never changed: {LONG}",
    "checks": [
        {
            "name": "params_move",
            "status": "failed",
            "measured": f"never changed: {LONG}",
            "expected": "every parameter changes",
        },
        {"name": "loss_falls", "status": "not_run", "measured": "not counted", "expected": "the loss falls"},
    ],
}


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("results")
    part1 = Record(
        f"ann/{LONG}.ipynb", "D", 1, "failed", f"the evidence `{LONG}` proves another stage", "ann"
    )
    part2 = Record("ann/D.ipynb", "D", 2, "failed", "a parameter never changed", "ann", trail=TRAIL)
    part2.checks = [["params_move", False]]
    write_results([part1, part2], out)
    room = out / "room.html"
    states = [
        LearnerState(
            "ann", "ann", True, ["00", "01"], 3, 45, graded=True, parts_answered=["A.1"], parts_total=16
        ),
        LearnerState(LONG, LONG, last_file=f"course/exercises/{LONG}.ipynb"),
    ]
    room.write_text(room_html(states, stamp="as of now"))
    return {"feedback": out / "feedback" / "ann.html", "audit": out / "audit" / "ann.html", "room": room}


@pytest.mark.parametrize("width", [1366, 390])
def test_no_page_scrolls_sideways(browser_context: BrowserContext, pages, width):
    page = browser_context.new_page()
    page.set_viewport_size({"width": width, "height": 900})
    try:
        for name, path in pages.items():
            page.goto(path.as_uri())
            overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 0, f"{name} at {width} px is {overflow} px too wide"
            tables = page.evaluate(
                "() => [...document.querySelectorAll('thead')].map(h => getComputedStyle(h).display)"
            )
            assert all((display == "none") == (width == 390) for display in tables), (name, tables)
        page.goto(pages["audit"].as_uri())
        label = page.evaluate(
            "() => getComputedStyle(document.querySelector('td[data-label]'), '::before').content"
        )
        assert (label == '"check: "') == (width == 390), label
    finally:
        page.close()
