"""`reset` warns that a copy of the notebook open in Jupyter, once saved, would undo the reset."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograd_course import open_notebooks
from autograd_course.cli import main


class _Sessions(http.server.BaseHTTPRequestHandler):
    """A Jupyter server's /api/sessions: lessons/04 open, only with the right token."""

    def do_GET(self) -> None:
        if self.path != "/api/sessions" or self.headers.get("Authorization") != "token secret":
            self.send_error(403)
            return
        body = json.dumps([{"path": "lessons/04_inplace_operations.ipynb", "kernel": {"id": "k"}}]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Sessions)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_reset_names_the_server_that_has_the_notebook_open(tmp_path, server, monkeypatch, capsys):
    ws = tmp_path / "my-work"
    assert main(["start", str(ws)]) == 0
    info = {"url": server, "token": "secret", "root_dir": str(ws)}
    monkeypatch.setattr(open_notebooks, "running_servers", lambda: [info])
    capsys.readouterr()
    assert main(["reset", "04", "--dir", str(ws)]) == 0
    out = capsys.readouterr().out
    assert f"04_inplace_operations.ipynb is open in JupyterLab ({server})" in out
    assert "Reload Notebook from Disk" in out and "Overwrite" in out
    assert main(["reset", "03", "--dir", str(ws)]) == 0  # not open: the general note only
    out = capsys.readouterr().out
    assert "If 03_backward_twice.ipynb is open in Jupyter" in out and server not in out


def test_a_server_that_does_not_answer_or_serves_elsewhere_is_left_out(tmp_path, server):
    target = tmp_path / "lessons" / "04_inplace_operations.ipynb"
    assert open_notebooks.open_in(target, [{"url": server, "token": "secret", "root_dir": str(tmp_path)}])
    assert not open_notebooks.open_in(target, [{"url": server, "token": "wrong", "root_dir": str(tmp_path)}])
    assert not open_notebooks.open_in(target, [{"url": server, "token": "secret", "root_dir": "/elsewhere"}])
    assert not open_notebooks.open_in(target, [{"url": "http://127.0.0.1:9/", "root_dir": str(tmp_path)}])
    assert not open_notebooks.open_in(Path("x.ipynb"), [{"url": server}])


def test_the_file_changed_warning_names_the_button_to_click_not_enter(tmp_path, monkeypatch, capsys):
    """JupyterLab's "File Changed" dialog focuses Overwrite: Enter writes the old notebook back."""
    monkeypatch.setattr(open_notebooks, "running_servers", lambda: [])
    assert main(["reset", "A", "--dir", str(tmp_path / "my-work")]) == 0
    note = capsys.readouterr().out.splitlines()[-1]
    assert "click Revert" in note, note
    [enter] = [sentence for sentence in note.split(". ") if "Enter" in sentence]
    assert enter.startswith("Do not press Enter") and "Enter chooses Overwrite" in enter, enter
    assert "choose Overwrite" not in note and "click Overwrite" not in note and "choose Revert" not in note
