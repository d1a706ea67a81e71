"""A throwaway JupyterHub on 127.0.0.1: a dummy authenticator, one home per learner, stopped by process id.

The single-user servers run through binder/start, as repo2docker runs them, with the course installed
non-editable from a copy of the checkout (as binder/postBuild installs it) and nbgitpuller from the
environment.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from browser.course_files import REPO
from browser.lab_server import LabServer, _free_port, stop_tree

__all__ = ["CHP_VERSION", "Hub", "find_proxy", "install_course", "learner_environments", "token_recipe"]

CHP_VERSION = "5.3.0"  # configurable-http-proxy from npm, installed by `find_proxy` when it is missing
PROXY_CACHE = REPO / ".cache" / "configurable-http-proxy"
PASSWORD = "classroom"  # the dummy authenticator's shared password


def find_proxy() -> Path | None:
    """configurable-http-proxy: on PATH, else installed with npm into .cache/ (None without npm)."""
    found = shutil.which("configurable-http-proxy")
    if found:
        return Path(found)
    binary = PROXY_CACHE / "node_modules" / ".bin" / "configurable-http-proxy"
    if not binary.exists():
        npm = shutil.which("npm")
        if npm is None or shutil.which("node") is None:
            return None
        PROXY_CACHE.mkdir(parents=True, exist_ok=True)
        command = [npm, "install", "--prefix", str(PROXY_CACHE), "--no-audit", "--no-fund"]
        done = subprocess.run(
            [*command, f"configurable-http-proxy@{CHP_VERSION}"], capture_output=True, text=True, timeout=300
        )
        if done.returncode != 0:
            raise RuntimeError(f"npm could not install configurable-http-proxy:\n{done.stderr[-2000:]}")
    return binary


def install_course(scratch: Path, target: Path) -> Path:
    """Install the course non-editable into target, as binder/postBuild does (`pip install .`).

    The dependencies come from the environment; the build runs on a copy of the working tree
    (every file git does not ignore), so nothing lands in the checkout.
    """
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    )
    for name in filter(None, listed.stdout.decode().split("\0")):
        if (REPO / name).is_file():
            (scratch / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, scratch / name)
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "-q",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
    ]
    done = subprocess.run(
        [*command, "--target", str(target), str(scratch)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return target


def token_recipe(tokens: Path) -> str:
    """The `c.Spawner.environment` recipe of docs/classroom.md, verbatim but for the tokens file's path."""
    text = (REPO / "docs" / "classroom.md").read_text(encoding="utf-8")
    recipe = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "AUTOGRAD_COURSE_TOKEN" in b)
    return recipe.replace("/srv/course/student.tokens.json", str(tokens))


class Hub:
    """JupyterHub with learners' homes in `base/homes/<user>`; the course importable from `site`."""

    def __init__(self, base: Path, site: Path, proxy: Path, users: tuple[str, ...]) -> None:
        self.base, self.site, self.proxy, self.users = base, site, proxy, users
        self.homes = base / "homes"
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = base / "jupyterhub.log"

    def __repr__(self) -> str:
        state = f"pid {self.process.pid}" if self.process else "not running"
        return f"Hub({self.url}, users={list(self.users)}, {state})"

    @property
    def url(self) -> str:
        """The hub's public URL (the proxy)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def browser_url(self) -> str:
        """The same hub under the name `localhost`: its cookies never mix with other 127.0.0.1 servers'."""
        return f"http://localhost:{self.port}"

    def tokens_path(self) -> Path:
        """A tokens file like `release --graded` writes (student.tokens.json): one token per learner."""
        path = self.base / "student.tokens.json"
        path.write_text(json.dumps({user: f"token-of-{user}" for user in self.users}), encoding="utf-8")
        return path

    def _config(self) -> Path:
        """Write jupyterhub_config.py: ports, dummy login, homes, binder/start, JupyterLab's test settings."""
        settings = LabServer(self.base, self.base / "lab", REPO)._write_settings()
        singleuser = [str(REPO / "binder" / "start"), sys.executable, "-m", "jupyterhub.singleuser"]
        args = [
            f"--LabApp.user_settings_dir={settings}",
            "--ServerApp.allow_root=True",  # CI containers run as root
            "--LabApp.expose_app_in_browser=True",
            "--LabApp.news_url=None",
            "--LabApp.extension_manager=readonly",
        ]
        lines = [
            f"c.JupyterHub.ip = '127.0.0.1'; c.JupyterHub.port = {self.port}",
            f"c.JupyterHub.hub_ip = '127.0.0.1'; c.JupyterHub.hub_port = {_free_port()}",
            f"c.ConfigurableHTTPProxy.api_url = 'http://127.0.0.1:{_free_port()}'",
            f"c.ConfigurableHTTPProxy.command = [{str(self.proxy)!r}]",
            f"c.JupyterHub.db_url = 'sqlite:///{self.base / 'hub.sqlite'}'",
            f"c.JupyterHub.cookie_secret_file = {str(self.base / 'cookie_secret')!r}",
            f"c.JupyterHub.pid_file = {str(self.base / 'hub.pid')!r}",
            "c.JupyterHub.authenticator_class = 'dummy'",
            f"c.DummyAuthenticator.password = {PASSWORD!r}",
            f"c.Authenticator.allowed_users = {set(self.users)!r}",
            "c.JupyterHub.spawner_class = 'simple'",
            f"c.SimpleLocalProcessSpawner.home_dir_template = {str(self.homes / '{username}')!r}",
            f"c.Spawner.cmd = {singleuser!r}",
            f"c.Spawner.args = {args!r}",
            "c.Spawner.default_url = '/lab'",  # the hub's own default URL, which binder/start must respect
            "c.Spawner.start_timeout = 180; c.Spawner.http_timeout = 180",
            # docs/classroom.md's recipe for each learner's token, as an instructor copies it
            token_recipe(self.tokens_path()),
            f"c.Spawner.environment['PYTHONPATH'] = {str(self.site)!r}",
        ]
        path = self.base / "jupyterhub_config.py"
        path.write_text("\n".join(lines) + "\n")
        return path

    def start(self, timeout: float = 120.0) -> Hub:
        """Start the hub (and its proxy) and wait until its API answers through the proxy."""
        self.homes.mkdir(parents=True, exist_ok=True)
        self.port = _free_port()
        config = self._config()
        env = {
            k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "AUTOGRAD_COURSE_LEARNER"))
        }
        env["PYTHONPATH"] = str(self.site)  # the course as the wheel installs it, not the checkout
        log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jupyterhub", "-f", str(config)],
            cwd=self.base,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"JupyterHub exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/hub/api/", timeout=5) as response:
                    json.loads(response.read())
                return self
            except (OSError, ValueError, urllib.error.URLError):
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(
            f"JupyterHub did not answer on {self.url} within {timeout:.0f} s:\n{self.log_tail()}"
        )

    def log_tail(self, lines: int = 60) -> str:
        """The last lines of the hub's log (the single-user servers log there too)."""
        if not self.log_path.exists():
            return "(no log)"
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self, grace: float = 20.0) -> None:
        """Stop the hub (it stops the proxy and the learners' servers), then anything left below it."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        stop_tree(process, grace)


def learner_environments(user: str) -> list[dict[str, str]]:
    """The environment of every running process of one learner's server (its kernels included)."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            raw = (proc / "environ").read_bytes()
        except OSError:  # gone, or not ours to read
            continue
        env = dict(item.split("=", 1) for item in raw.decode(errors="replace").split("\0") if "=" in item)
        if env.get("JUPYTERHUB_USER") == user:
            found.append(env)
    return found
