"""The browser checks' logic on made-up cells, and the Chromium requirement: fast, no browser needed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from browser.chromium import INSTALL_HINT, REQUIRE_BROWSER, require_chromium
from browser.notebook_checks import CellView, problems_in


def cell(kind: str = "code", source: str = "x = 1", count: int | None = 1, **views: Any) -> CellView:
    """A cell snapshot as READ_CELLS returns it, healthy unless `views` says otherwise."""
    return CellView(
        index=views.get("index", 0),
        kind=kind,
        source=source,
        count=count,
        running=views.get("running", False),
        outputs=views.get("outputs", []),
        mermaid=views.get("mermaid", []),
        images=views.get("images", []),
        widget_errors=views.get("widget_errors", []),
    )


def output(kind: str, *mimes: str, shown: str = "", live: bool = False, markdown: str = "") -> dict[str, Any]:
    """An output snapshot: its type, mime types, rendered text and whether a widget control is in it."""
    error = "ZeroDivisionError: division by zero" if kind == "error" else ""
    return {
        "type": kind,
        "mimes": list(mimes),
        "markdown": markdown,
        "error": error,
        "shown": shown,
        "live": live,
    }


WIDGET = "application/vnd.jupyter.widget-view+json"
GRAPH = "```mermaid\nflowchart TD\n  a --> b\n```"


def test_a_healthy_run_has_no_problems() -> None:
    """Warnings on stderr, a drawn plot, a drawn diagram and a live widget are all fine."""
    cells = [
        cell("markdown", f"# Title\n\n{GRAPH}\n", None, mermaid=[{"ok": True, "text": "a b"}]),
        cell(outputs=[output("stream", "application/vnd.jupyter.stderr", shown="UserWarning: careful")]),
        cell(index=2, outputs=[output("display_data", "image/png")], images=[True]),
        cell(index=3, outputs=[output("display_data", "text/plain", WIDGET, live=True)], images=[True, True]),
        cell(index=4, source="", count=None),
    ]
    assert problems_in(cells, []) == []


def test_each_kind_of_breakage_is_reported_on_its_cell() -> None:
    """Errors, cells not run, failed or missing diagrams, dead widgets, undrawn plots, console errors."""
    cells = [
        cell(outputs=[output("error", "application/vnd.jupyter.stderr", shown="Traceback\n1 / 0")]),
        cell(index=1, count=None),
        cell("markdown", GRAPH, None, index=2, mermaid=[{"ok": False, "text": "flowchart TD a -->"}]),
        cell("markdown", GRAPH, None, index=3),
        cell(
            index=4,
            outputs=[output("display_data", WIDGET, shown="Error displaying widget: model not found")],
        ),
        cell(index=5, outputs=[output("display_data", WIDGET, shown="")]),
        cell(index=6, outputs=[output("display_data", "image/png")], images=[False]),
        cell(index=7, outputs=[output("execute_result", "text/markdown", markdown=GRAPH)]),
    ]
    found = {(p.check, p.cell) for p in problems_in(cells, ["TypeError: x is undefined"])}
    assert found == {
        ("cell error", 0),
        ("not run", 1),
        ("mermaid", 2),
        ("mermaid", 3),
        ("widget", 4),
        ("widget", 5),
        ("plot", 6),
        ("mermaid", 7),
        ("console", None),
    }


def test_identical_diagrams_may_share_one_figure() -> None:
    """JupyterLab caches a diagram by its text, so two identical blocks need only one figure."""
    twice = cell("markdown", f"{GRAPH}\n\n{GRAPH}\n", None, mermaid=[{"ok": True, "text": "a b"}])
    assert twice.expected_mermaid() == 1
    assert problems_in([twice], []) == []


def test_missing_chromium_skips_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """On a developer machine without Chromium the browser tests skip and say how to install it."""
    monkeypatch.delenv(REQUIRE_BROWSER, raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get update && apt-get install -y chromium"):
        require_chromium(tmp_path / "chromium")


def test_missing_chromium_fails_where_ci_requires_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """With AUTOGRAD_COURSE_REQUIRE_BROWSER=1 (set by .ci/run) a missing Chromium is a failure."""
    monkeypatch.setenv(REQUIRE_BROWSER, "1")
    with pytest.raises(pytest.fail.Exception, match=INSTALL_HINT):
        require_chromium(tmp_path / "chromium")


def test_a_file_that_is_not_executable_is_not_chromium(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A leftover non-executable file at the path counts as missing."""
    monkeypatch.delenv(REQUIRE_BROWSER, raising=False)
    fake = tmp_path / "chromium"
    fake.write_text("not a browser")
    with pytest.raises(pytest.skip.Exception, match="not found"):
        require_chromium(fake)
