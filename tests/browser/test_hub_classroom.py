"""The classroom on a real JupyterHub: nbgitpuller links, two learners in Chromium, collect, grade, the room.

The hub (jupyterhub from PyPI, configurable-http-proxy from npm, a dummy login, one temporary home
per learner) serves single-user JupyterLab through binder/start with the course installed from its
wheel. The course repository is a bare clone of this checkout holding the student release as a
branch, as an instructor's GitHub repository would.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from autograd_instructor.challenge import PARTS, variant_for
from browser.chromium import REQUIRE_BROWSER
from browser.course_files import REPO
from browser.notebook_page import NotebookPage

if TYPE_CHECKING:
    from hub.hub_server import Hub
    from hub.learner import Learner
    from playwright.sync_api import BrowserContext

pytestmark = [pytest.mark.browser, pytest.mark.slow]

USERS = ("ada", "bob")  # ada works, bob only opens the link
LESSON = "notebooks/00_mental_model.ipynb"
EXERCISE = "exercises/A_detached_output.ipynb"
BRANCH = "student"
YOURTURN_MIME = "application/vnd.autograd-course.yourturn+json"


def _missing(what: str) -> None:
    """Skip without a hub dependency; fail where the browser tests are required (CI)."""
    if os.environ.get(REQUIRE_BROWSER) == "1":
        pytest.fail(f"{what}, and {REQUIRE_BROWSER}=1 makes the browser tests required")
    pytest.skip(what)


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run autograd-course from the checkout (the instructor's side)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("JUPYTERHUB_USER", None)
    return subprocess.run(
        [sys.executable, "-m", "autograd_course", *args], cwd=cwd, env=env, capture_output=True, text=True
    )


def _git(*args: str, cwd: Path) -> None:
    ident = ["-c", "user.name=Instructor", "-c", "user.email=instructor@example.org"]
    subprocess.run(["git", *ident, *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def course_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bare clone of the checkout with the student release (`autograd-course release`) as a branch."""
    base = tmp_path_factory.mktemp("course-repo")
    bare = base / "course.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(REPO), str(bare)], check=True)
    release = base / "release"
    done = _cli("release", str(release))
    assert done.returncode == 0, done.stderr
    _git("init", "-q", "-b", BRANCH, cwd=release)
    _git("add", "-A", cwd=release)
    _git("commit", "-q", "-m", "student release", cwd=release)
    _git("push", "-q", bare.as_uri(), BRANCH, cwd=release)
    return bare


@pytest.fixture(scope="module")
def hub(chromium_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    """The hub with the course installed non-editable; stopped (with the learners' servers) by PID."""
    for module in ("jupyterhub", "nbgitpuller"):
        try:
            __import__(module)
        except ImportError:
            _missing(f"{module} is not installed (pip install -c constraints.txt -e '.[dev]')")
    from hub.hub_server import Hub, find_proxy, install_course

    try:
        proxy = find_proxy()
    except RuntimeError as exc:  # npm is there but could not install it (no registry, say)
        _missing(str(exc))
    if proxy is None:
        _missing("configurable-http-proxy needs node and npm (apt-get install -y nodejs npm)")
    base = tmp_path_factory.mktemp("hub")
    site = install_course(base / "source", base / "site")
    server = Hub(base / "hub", site, proxy, USERS)
    try:
        yield server.start()
    finally:
        server.stop()


def _link(hub: Hub, repo: Path, path: str) -> str:
    """The JupyterHub link `autograd-course links --hub` prints for path."""
    done = _cli("links", "--repo", repo.as_uri(), "--ref", BRANCH, "--hub", hub.browser_url)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    at = lines.index(path)
    hub_line = lines[at + 1].split(None, 1)  # file:// gets no Colab or Binder line, only this one
    assert hub_line[0] == "JupyterHub", lines[at : at + 3]
    return hub_line[1]


def _verdicts(notebook: NotebookPage, mime: str) -> list[str]:
    """What each verdict of one kind shows on screen, in cell order."""
    return [o["shown"] for c in notebook.cells() for o in c.outputs if mime in o["mimes"]]


def _solution_source(learner: str, exercise: str, part: int) -> str:
    """The reference answer of one part for this learner's own variant (the hub user draws it)."""
    ex_id = Path(exercise).name.split("_", 1)[0]
    return PARTS[part].solution(variant_for(learner, ex_id))


def _ada_works(ada: Learner, hub: Hub, repo: Path, shots: Path) -> None:
    """Log in, follow the lesson's link, Run All, solve an activity, solve challenge A, reopen the link."""
    from autograd_course.yourturn.engine import activities

    landed = ada.log_in()
    assert landed.split("?")[0].endswith("/user/ada/lab"), f"login landed on {landed}, not the hub's /lab"
    assert not ada.dialogs(), f"a dialog at login: {ada.dialogs()}"
    link = _link(hub, repo, LESSON)
    assert ada.follow(link, f"course/{LESSON}") == f"course/{LESSON}"
    lesson = NotebookPage(ada.lab, f"course/{LESSON}", shots).run_all()
    problems = lesson.problems()
    assert not problems, lesson.report(problems)
    shown = _verdicts(lesson, YOURTURN_MIME)
    assert shown and all("Your turn 00." in s for s in shown), shown
    assert ada.ask_kernel("from autograd_course.learner import read_learner; print(read_learner())") == "ada"
    where = ada.ask_kernel("import autograd_course; print(autograd_course.__file__)")
    assert where.startswith(str(hub.site)), f"the kernel imports the course from {where}, not the install"
    last = activities("00")[-1]
    answer = {"yourturn": last.id, "role": "answer"}
    assert ada.set_source(answer, last.solution) == 1
    ada.run_cells(answer, {"yourturn": last.id, "role": "check"})
    lesson.wait_until_finished(60)
    assert any(f"Your turn {last.id}: correct" in s for s in _verdicts(lesson, YOURTURN_MIME))
    ada.save()
    ada.open(f"course/{EXERCISE}")
    for part in (1, 2):
        assert ada.set_source({"part": part, "role": "answer"}, _solution_source("ada", EXERCISE, part)) == 1
    exercise = NotebookPage(ada.lab, f"course/{EXERCISE}", shots).run_all()
    verdicts = _verdicts(exercise, "application/vnd.autograd-course.verdict+json")
    assert len(verdicts) == 2 and "A part 1: correct" in verdicts[0] and "A part 2: correct" in verdicts[1], (
        verdicts
    )
    ada.save()
    assert ada.follow(link, f"course/{LESSON}") == f"course/{LESSON}"  # the link again: nbgitpuller merges
    assert ada.source_of(answer) == last.solution, "the learner's edit did not survive opening the link again"
    ada.log_out()


def _bob_opens(bob: Learner, hub: Hub, repo: Path) -> None:
    """Log in and follow the same link: an untouched copy, no dialog."""
    bob.log_in()
    assert not bob.dialogs(), f"a dialog at login: {bob.dialogs()}"
    assert bob.follow(_link(hub, repo, LESSON), f"course/{LESSON}") == f"course/{LESSON}"
    release = REPO / LESSON
    assert (hub.homes / "bob" / "course" / LESSON).read_bytes() == release.read_bytes()
    bob.log_out()


def _instructor(hub: Hub, out: Path) -> None:
    """class-progress shows both; collect then grade A: ada full points, bob not attempted, by user name."""
    room = _cli("class-progress", str(hub.homes), "--json")
    assert room.returncode == 0, room.stderr
    state = {s["user"]: s for s in json.loads(room.stdout)}
    assert state["ada"]["started"] and "00" in state["ada"]["lessons_run"], state["ada"]
    assert state["ada"]["activities_correct"] >= 1 and {"A.1", "A.2"} <= set(
        state["ada"]["parts_self_reported"]
    )
    assert state["bob"]["started"] and not state["bob"]["lessons_run"] and not state["bob"]["parts_passed"]
    subs, roster = out / "submissions", out / "roster.csv"
    done = _cli("collect", str(hub.homes), "--out", str(subs), "--roster", str(roster))
    assert done.returncode == 0, done.stderr
    assert (hub.homes / "ada" / "course" / EXERCISE).is_file(), "collect must copy, never move"
    rows = list(csv.DictReader(roster.read_text().splitlines()))
    assert {(r["id"], r["name"]) for r in rows} == {("ada", "ada"), ("bob", "bob")}
    only_a = out / "roster-a.csv"  # grade challenge A only: the other notebooks are stubs for both
    with only_a.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["id", "name", "files"])
        writer.writeheader()
        for r in rows:
            files = [p for p in r["files"].split(";") if Path(p).name == Path(EXERCISE).name]
            writer.writerow({**r, "files": ";".join(files)})
    graded = _cli(
        "grade", str(subs), "--roster", str(only_a), "--out", str(out / "results"), "--sandbox", "none"
    )
    assert graded.returncode == 0, graded.stdout + graded.stderr
    records = json.loads((out / "results" / "results.json").read_text())
    by = {(r["student"], r["part"]): r for r in records if r["exercise"] == "A"}
    assert {s for s, _ in by} == {"ada", "bob"}
    for part in (1, 2):
        assert (
            by["ada", part]["status"] == "passed"
            and by["ada", part]["points"] == by["ada", part]["max_points"]
        )
        assert by["bob", part]["status"] == "missing" and by["bob", part]["points"] == 0, by["bob", part]


def _each_learner_has_their_own_token() -> None:
    """docs/classroom.md's `c.Spawner.environment` recipe: each learner's server and kernels get a token."""
    from hub.hub_server import learner_environments

    for user in ("ada", "bob"):
        envs = learner_environments(user)
        assert envs, f"no running process of {user}'s server"
        assert {env.get("AUTOGRAD_COURSE_TOKEN") for env in envs} == {f"token-of-{user}"}


def test_a_workshop_on_a_real_jupyterhub(
    hub: Hub, course_repo: Path, browser_context: BrowserContext, tmp_path: Path
) -> None:
    """Two learners follow the link; ada works, bob does not; the instructor watches, collects, grades."""
    from hub.learner import Learner

    page = browser_context.new_page()
    try:
        _ada_works(Learner(page, hub, "ada"), hub, course_repo, tmp_path / "shots")
        _bob_opens(Learner(page, hub, "bob"), hub, course_repo)
    except Exception:
        print(hub.log_tail(80))
        raise
    finally:
        page.close()
    _each_learner_has_their_own_token()
    assert not list(hub.homes.rglob("solutions")), "a learner's home holds solutions/"
    assert sorted(p.name for p in hub.homes.iterdir()) == ["ada", "bob"]
    _instructor(hub, tmp_path)
