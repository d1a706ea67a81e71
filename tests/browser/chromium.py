"""Debian's Chromium for the browser tests: where it is, how to launch it, and what to do without it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "INSTALL_HINT",
    "REQUIRE_BROWSER",
    "chromium_problem",
    "require_chromium",
]

CHROMIUM = Path("/usr/bin/chromium")
# Flags that work in a container without a GPU or network; Playwright's own browser download cannot work here.
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
REQUIRE_BROWSER = "AUTOGRAD_COURSE_REQUIRE_BROWSER"


def chromium_problem(path: Path = CHROMIUM) -> str:
    """Why the browser tests cannot run here ("" when Chromium and playwright are both there)."""
    if not (path.is_file() and os.access(path, os.X_OK)):
        return f"Chromium not found at {path}"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is missing (pip install -c constraints.txt -e '.[dev]')"
    return ""


def require_chromium(path: Path = CHROMIUM) -> Path:
    """Return `path` if Chromium and playwright are there; else skip, or fail where REQUIRE_BROWSER=1 (CI)."""
    reason = chromium_problem(path)
    if not reason:
        return path
    if os.environ.get(REQUIRE_BROWSER) == "1":
        pytest.fail(f"{reason}, and {REQUIRE_BROWSER}=1 makes the browser tests required; {INSTALL_HINT}")
    pytest.skip(f"{reason}; {INSTALL_HINT}")
