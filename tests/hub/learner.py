"""One learner in Chromium on the hub: log in, follow a link, edit and run cells, ask the kernel."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from browser.lab_page import _APP_READY, _CLOSE_ALL, _KERNEL_IDLE, LabPage

from hub.hub_server import PASSWORD

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from hub.hub_server import Hub

__all__ = ["Learner"]

_CURRENT_PATH = (
    "() => { const w = window.jupyterapp.shell.currentWidget; return w && w.context ? w.context.path : ''; }"
)

# Set the source of the first cell whose autograd_course metadata has these keys and values.
_SET_SOURCE = """([match, source]) => {
  const panel = window.jupyterapp.shell.currentWidget;
  const hits = panel.content.widgets.filter((cell) => {
    const meta = cell.model.sharedModel.getMetadata().autograd_course || {};
    return Object.entries(match).every(([k, v]) => meta[k] === v);
  });
  hits.forEach((cell) => cell.model.sharedModel.setSource(source));
  return hits.length;
}"""

_SOURCE_OF = """(match) => {
  const panel = window.jupyterapp.shell.currentWidget;
  const cell = panel.content.widgets.find((c) => {
    const meta = c.model.sharedModel.getMetadata().autograd_course || {};
    return Object.entries(match).every(([k, v]) => meta[k] === v);
  });
  return cell ? cell.model.sharedModel.getSource() : null;
}"""

_RUN_CELLS = """async (matches) => {
  const app = window.jupyterapp;
  const panel = app.shell.currentWidget;
  for (const match of matches) {
    const index = panel.content.widgets.findIndex((c) => {
      const meta = c.model.sharedModel.getMetadata().autograd_course || {};
      return Object.entries(match).every(([k, v]) => meta[k] === v);
    });
    if (index < 0) return false;
    panel.content.activeCellIndex = index;
    await app.commands.execute("notebook:run-cell");
  }
  return true;
}"""

_SAVE = """async () => {
  const app = window.jupyterapp;
  await app.commands.execute("docmanager:save");
  return app.shell.currentWidget.context.model.dirty;
}"""

# Run code in the open notebook's kernel (the learner's own kernel) and return what it printed.
_ASK_KERNEL = """async (code) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const future = kernel.requestExecute({ code, store_history: false });
  let out = "";
  future.onIOPub = (msg) => {
    if (msg.header.msg_type === "stream") out += msg.content.text;
    if (msg.header.msg_type === "error") out += msg.content.ename + ": " + msg.content.evalue;
  };
  await future.done;
  return out.trim();
}"""


class Learner:
    """A hub user driving JupyterLab in one Chromium page (the page's console errors are kept)."""

    def __init__(self, page: Page, hub: Hub, user: str) -> None:
        self.page, self.hub, self.user = page, hub, user
        self.lab = LabPage(page, hub)  # type: ignore[arg-type]  # only its console and open() are used

    def __repr__(self) -> str:
        return f"Learner({self.user} on {self.hub.url})"

    def wait_for_lab(self, timeout: float = 180.0) -> None:
        """Wait until JupyterLab's app is up in the page."""
        self.page.wait_for_function(_APP_READY, timeout=timeout * 1000)
        self.page.wait_for_selector(".jp-LabShell", timeout=timeout * 1000)

    def log_in(self) -> str:
        """Log in through the hub's form; wait for JupyterLab; return the URL it landed on."""
        self.page.goto(f"{self.hub.browser_url}/hub/login")
        self.page.fill("#username_input", self.user)
        self.page.fill("#password_input", PASSWORD)
        self.page.click("#login_submit")
        self.page.wait_for_url(re.compile(rf"/user/{self.user}/"), timeout=180_000)
        self.wait_for_lab()
        return self.page.url

    def dialogs(self, settle_ms: int = 2000) -> list[str]:
        """The text of every dialog JupyterLab shows (after giving it time to open one)."""
        self.page.wait_for_timeout(settle_ms)
        return [d.inner_text()[:300] for d in self.page.locator(".jp-Dialog").all()]

    def follow(self, link: str, path: str) -> str:
        """Open an nbgitpuller link; wait for JupyterLab and the notebook's kernel; return the open path."""
        self.page.goto(link)
        self.page.wait_for_url(re.compile(r"/lab"), timeout=180_000)
        self.wait_for_lab()
        self.page.wait_for_function(f"() => ({_CURRENT_PATH})() === {path!r}", timeout=120_000)
        self.page.wait_for_function(_KERNEL_IDLE, timeout=120_000, polling=200)
        return self.page.evaluate(_CURRENT_PATH)

    def open(self, path: str) -> None:
        """Close every open document (each was saved), then open path and wait for its kernel."""
        self.page.evaluate(_CLOSE_ALL)
        self.lab.open(path)

    def set_source(self, match: dict[str, object], source: str) -> int:
        """Type source into the cells whose metadata matches (how many)."""
        return self.page.evaluate(_SET_SOURCE, [match, source])

    def source_of(self, match: dict[str, object]) -> str | None:
        """The source of the first cell whose metadata matches."""
        return self.page.evaluate(_SOURCE_OF, match)

    def run_cells(self, *matches: dict[str, object]) -> None:
        """Run the cells whose metadata match, in order (Shift+Enter on each, as a learner would)."""
        assert self.page.evaluate(_RUN_CELLS, list(matches)), f"{self.user}: no cell matches {matches}"

    def save(self) -> None:
        """File > Save; assert the notebook is no longer modified."""
        assert self.page.evaluate(_SAVE) is False, f"{self.user}: the notebook is still modified after saving"

    def ask_kernel(self, code: str) -> str:
        """What code prints in the open notebook's kernel."""
        return self.page.evaluate(_ASK_KERNEL, code)

    def log_out(self) -> None:
        """Log out of the hub (the learner's server keeps running, as on a real hub)."""
        self.page.goto(f"{self.hub.browser_url}/hub/logout")
        self.page.wait_for_url(re.compile(r"/hub/login"), timeout=60_000)
