"""Browser fixtures: one JupyterLab server and one Chromium per pytest worker, a fresh page per notebook."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from browser.chromium import CHROMIUM_ARGS, require_chromium
from browser.course_files import FIXTURES, REPO

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

    from browser.lab_page import LabPage
    from browser.lab_server import LabServer
    from browser.notebook_page import NotebookPage


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    """Debian's Chromium, or a skip (a failure in CI) that says how to install it."""
    return require_chromium()


@pytest.fixture(scope="session")
def lab_server(chromium_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """JupyterLab over a temporary copy of the course (and the fixtures), stopped with its kernels."""
    from browser.lab_server import LabServer, copy_course

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
    home = tmp_path_factory.mktemp("chromium-home")  # so nothing lands in the developer's ~/.pki or ~/.cache
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(chromium_path),
            headless=True,
            args=CHROMIUM_ARGS,
            env={**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")},
            viewport={"width": 1280, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture(scope="session")
def lab_page(lab_server: LabServer, browser_context: BrowserContext) -> LabPage:
    """The worker's JupyterLab page, loaded once; notebooks open in it one after another."""
    from browser.lab_page import LabPage

    return LabPage(browser_context.new_page(), lab_server).load()


@pytest.fixture
def open_notebook(lab_page: LabPage, tmp_path: Path) -> Iterator[Callable[[str], NotebookPage]]:
    """Open a notebook (path relative to the course root); after the test, close it and stop its kernel."""
    from browser.notebook_page import NotebookPage

    def open_(path: str) -> NotebookPage:
        lab_page.close_all()
        return NotebookPage(lab_page, path, tmp_path).open()

    yield open_
    lab_page.close_all()
