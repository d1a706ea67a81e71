"""Browser fixtures: one JupyterLab server and one Chromium per pytest worker, a fresh page per notebook."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from course_files import FIXTURES, REPO

if TYPE_CHECKING:
    from lab_page import LabPage
    from lab_server import LabServer
    from notebook_page import NotebookPage
    from playwright.sync_api import BrowserContext

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
INSTALL_HINT = "install it with: apt-get update && apt-get install -y chromium"


def _browser_missing(reason: str) -> None:
    """Fail where CI requires the browser (AUTOGRAD_COURSE_REQUIRE_BROWSER=1), skip elsewhere."""
    if os.environ.get("AUTOGRAD_COURSE_REQUIRE_BROWSER") == "1":
        pytest.fail(
            f"{reason} and AUTOGRAD_COURSE_REQUIRE_BROWSER=1 requires the browser tests; {INSTALL_HINT}"
        )
    pytest.skip(f"{reason}; {INSTALL_HINT}")


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    """Debian's Chromium, or a skip (a failure in CI) that says how to install it."""
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        _browser_missing(f"Chromium not found at {CHROMIUM}")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _browser_missing("the playwright package is missing (pip install -e '.[dev]')")
    return CHROMIUM


@pytest.fixture(scope="session")
def lab_server(chromium_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """JupyterLab over a temporary copy of the course (and the fixtures), stopped with its kernels."""
    from lab_server import LabServer, copy_course

    base = tmp_path_factory.mktemp("jupyterlab")
    root = copy_course(REPO, base / "course", {"fixtures": FIXTURES})
    server = LabServer(root, base / "home", REPO)
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser_context(
    chromium_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BrowserContext]:
    """One headless Chromium with an empty profile, shared by every test of this worker."""
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(chromium_path),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture(scope="session")
def lab_page(lab_server: LabServer, browser_context: BrowserContext) -> LabPage:
    """The worker's JupyterLab page, loaded once; notebooks open in it one after another."""
    from lab_page import LabPage

    return LabPage(browser_context.new_page(), lab_server).load()


@pytest.fixture
def open_notebook(lab_page: LabPage, tmp_path: Path) -> Iterator[Callable[[str], NotebookPage]]:
    """Open a notebook (path relative to the course root); after the test, close it and stop its kernel."""
    from notebook_page import NotebookPage

    def open_(path: str) -> NotebookPage:
        lab_page.close_all()
        return NotebookPage(lab_page, path, tmp_path).open()

    yield open_
    lab_page.close_all()
