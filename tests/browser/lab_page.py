"""One JupyterLab page per test worker: loaded once, notebooks opened in it in turn, console errors kept."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import ConsoleMessage, Error, Page

    from browser.lab_server import LabServer

__all__ = ["IGNORED_CONSOLE_ERRORS", "LabPage"]

# Console errors that say nothing about the course, as (pattern, why it is harmless). JupyterLab 4.6 logs
# none while it opens and runs a healthy notebook here: the server runs with news and update checks off
# and a read-only extension manager, so nothing asks the network. Add a pattern only with its reason.
IGNORED_CONSOLE_ERRORS: tuple[tuple[str, str], ...] = ()

TEARDOWN_ERROR = "uncaught Error: Disposed"  # see LabPage.close_all

_APP_READY = "() => !!(window.jupyterapp && window.jupyterapp.shell && window.jupyterapp.commands)"

# Started, not awaited: a promise held across page.evaluate can be collected while JupyterLab is busy
# ("Resulting promise was garbage collected", seen in CI); open() polls for the notebook instead.
_OPEN = """(path) => {
  const app = window.jupyterapp;
  app.commands.execute("docmanager:open", { path, factory: "Notebook" }).then((panel) =>
    panel.context.ready.then(() => app.shell.activateById(panel.id)));
}"""

_OPENED = """(path) => {
  const panel = window.jupyterapp.shell.currentWidget;
  return !!panel && !!panel.context && panel.context.path === path && panel.context.isReady;
}"""

_KERNEL_IDLE = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const kernel = panel && panel.sessionContext && panel.sessionContext.session
    && panel.sessionContext.session.kernel;
  return !!kernel && kernel.status === "idle";
}"""

# Dispose of (not close) every document: closing a run notebook would ask whether to save it.
_CLOSE_ALL = "() => { for (const w of [...window.jupyterapp.shell.widgets('main')]) w.dispose(); }"


class LabPage:
    """A Chromium page holding JupyterLab; notebooks open in it through the document manager."""

    def __init__(self, page: Page, server: LabServer) -> None:
        self.page, self.server = page, server
        self.console: list[str] = []
        page.on("console", self._on_console)
        page.on("pageerror", self._on_page_error)

    def __repr__(self) -> str:
        return f"LabPage({self.server.url}, console errors={len(self.console)})"

    def _on_console(self, message: ConsoleMessage) -> None:
        """Keep console errors that no IGNORED_CONSOLE_ERRORS pattern explains (their first line)."""
        text = message.text.strip()
        if message.type == "error" and not any(re.search(p, text) for p, _ in IGNORED_CONSOLE_ERRORS):
            self.console.append(text.splitlines()[0][:300] if text else "(empty console error)")

    def _on_page_error(self, error: Error) -> None:
        """Uncaught exceptions in the page are errors too."""
        self.console.append(f"uncaught {error.name}: {error.message}"[:300])

    def load(self, timeout: float = 120.0) -> LabPage:
        """Load JupyterLab with a fresh workspace and wait until its app is up."""
        self.page.goto(f"{self.server.url}/lab?reset&token={self.server.token}", timeout=timeout * 1000)
        self.page.wait_for_function(_APP_READY, timeout=timeout * 1000)
        self.page.wait_for_selector(".jp-LabShell", timeout=timeout * 1000)
        return self

    def open(self, path: str, timeout: float = 90.0) -> None:
        """Open a notebook (path relative to the server root) and wait until its kernel is idle."""
        self.page.evaluate(_OPEN, path)
        self.page.wait_for_function(_OPENED, arg=path, timeout=timeout * 1000, polling=200)
        self.page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=timeout * 1000)
        self.wait_for_kernel_idle(timeout)

    def wait_for_kernel_idle(self, timeout: float = 90.0) -> None:
        """Wait until the current notebook's kernel is connected and idle. A kernel shut down while the
        page is still connecting to it makes the server answer 500 a few seconds later, in the console
        of whichever notebook comes next."""
        self.page.wait_for_function(_KERNEL_IDLE, timeout=timeout * 1000, polling=200)

    def close_all(self, settle_ms: int = 1000) -> None:
        """Dispose of every open document and shut its kernel down; reload the page if that fails.

        Disposing a notebook and shutting its kernel down rejects the requests its kernel connection
        still has in flight with an uncaught "Error: Disposed": the harness's teardown, not the
        notebook. Those (and only those, logged until the kernels are gone and the page has settled)
        are dropped, so they are not blamed on the next notebook.
        """
        before = len(self.console)
        try:
            self.page.evaluate(_CLOSE_ALL)
        except Exception:  # a crashed or wedged page: start the next notebook from a fresh one
            self.load()
        self.server.shutdown_kernels()
        self.server.wait_for_shutdowns()
        self.page.wait_for_timeout(settle_ms)
        self.console[before:] = [e for e in self.console[before:] if e != TEARDOWN_ERROR]
