"""The built course site in Chromium: every page draws its diagrams and outputs, loads nothing from another
host, logs no console error, has launch links for the fork it was built for, and passes axe-core
(no violation of impact serious or critical).

axe-core comes from npm: `npm ci --prefix tests/browser` (.ci/run does it); without it the test
skips, or fails where AUTOGRAD_COURSE_REQUIRE_BROWSER=1.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlparse

import pytest

from autograd_course.cli import main
from autograd_course.course import course_notebooks, exercise_notebooks
from browser.chromium import REQUIRE_BROWSER

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

pytestmark = [pytest.mark.browser, pytest.mark.slow]

AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
FORK = "https://github.com/teacher/autograd-fork"
BRANCH = "spring-2027"
PAGES = ["index.html"]
PAGES += [f"notebooks/{p.stem}.html" for p in course_notebooks()]
PAGES += [f"exercises/{p.stem}.html" for p in exercise_notebooks()]

_AXE_RUN = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations
    .filter(v => v.impact === "serious" || v.impact === "critical")
    .map(v => `${v.impact} ${v.id}: ${v.help} (${v.nodes.length}x, e.g. ${v.nodes[0].target.join(" ")})`);
}"""
RAW_WIDGET = re.compile(r"\b(VBox|HBox|Box|interactive)\(children=")
_READY = "() => document.body.dataset.ready === 'true'"  # site.js: diagrams drawn, scrollers focusable


def _axe() -> Path:
    if AXE.is_file():
        return AXE
    reason = f"axe-core is missing ({AXE}): run npm ci --prefix tests/browser"
    if os.environ.get(REQUIRE_BROWSER) == "1":
        pytest.fail(f"{reason}; {REQUIRE_BROWSER}=1 makes the browser tests required")
    pytest.skip(reason)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # the test reports what matters
        pass


@pytest.fixture(scope="module")
def site_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The site built once with the CLI for a fork, served on 127.0.0.1 until the module ends."""
    _axe()
    out = tmp_path_factory.mktemp("site") / "public"
    assert main(["site", str(out), "--repo", FORK, "--branch", BRANCH]) == 0
    handler = functools.partial(_Quiet, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.mark.parametrize("path", PAGES)
def test_page_renders_offline_and_passes_axe(path: str, site_url: str, browser_context: BrowserContext):
    page = browser_context.new_page()
    errors: list[str] = []
    elsewhere: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("request", lambda r: None if r.url.startswith((site_url, "data:")) else elsewhere.append(r.url))
    try:
        response = page.goto(site_url + path, wait_until="load")
        assert response is not None and response.ok
        page.wait_for_function(_READY, timeout=20_000)
        mermaid = page.locator("pre.mermaid")
        for i in range(mermaid.count()):
            assert mermaid.nth(i).locator("svg").count() == 1, f"diagram {i} of {path} was not drawn"
        if path.startswith("notebooks/"):
            assert page.locator(".output_area").first.is_visible()
        assert not RAW_WIDGET.search(page.inner_text("main")), f"{path} shows a widget's repr"
        if path != "index.html":
            rel = path.removesuffix(".html") + ".ipynb"
            colab = page.get_by_role("link", name="Open in Colab").get_attribute("href")
            assert (
                colab == f"https://colab.research.google.com/github/teacher/autograd-fork/blob/{BRANCH}/{rel}"
            )
            binder = urlparse(page.get_by_role("link", name="Launch on Binder").get_attribute("href"))
            assert binder.path == f"/v2/gh/teacher/autograd-fork/{BRANCH}"
            assert parse_qs(binder.query) == {"labpath": [rel]}
            download = page.get_by_role("link", name="Download the notebook (.ipynb)")
            assert download.get_attribute("href") == Path(rel).name
        page.add_script_tag(content=_axe().read_text(encoding="utf-8"))
        violations = page.evaluate(_AXE_RUN)
        assert not violations, f"{path}: " + "\n".join(violations)
        assert not errors, f"{path}: console errors {errors}"
        assert not elsewhere, f"{path}: requests to another host {elsewhere}"
    finally:
        page.close()


def test_search_finds_retain_graph_in_lesson_03(site_url: str, browser_context: BrowserContext):
    page = browser_context.new_page()
    try:
        page.goto(site_url + "index.html")
        page.get_by_label("Search the course").fill("retain_graph")
        first = page.locator("#search-results li a").first
        first.wait_for(timeout=10_000)
        assert first.inner_text().startswith("03 · Backward twice")
        first.click()
        page.wait_for_url("**/notebooks/03_backward_twice.html*")
    finally:
        page.close()
