"""Shared test configuration."""

from pathlib import Path

import pytest

# Fixture notebooks are inputs to tests (some fail on purpose); nbval must not collect them.
collect_ignore_glob = ["fixtures/*", "**/fixtures/*"]


# Files whose tests are long and independent: under `--dist loadfile` each of their tests is its own
# unit, so the workers share them as they finish (every other file stays whole on one worker, which
# its module-scoped fixtures, e.g. one grading run for the whole file, need). xdist's own
# `xdist_group` cannot do this here: with pytest 9 it no longer renames the test ids it groups by.
SPREAD_PER_TEST = ("tests/browser/test_browser_notebooks.py", "tests/browser/test_browser_solutions.py")

# Files that take minutes (the slowest in `--durations`), started first, longest first: xdist
# otherwise orders files by their number of tests, which puts these few-test files last, where
# one of them alone is the end of the run while the other worker has nothing left to do.
# Only the order changes: a file missing here runs after them, a file listed and gone is ignored.
LONGEST_FIRST = (
    "tests/test_attack_matrix.py",
    "tests/test_colab_env.py",
    "tests/test_nbval_portability.py",
    "tests/browser/test_hub_classroom.py",
    "tests/test_grade_installs.py",
    "tests/test_grade_class.py",
    "tests/test_challenge_grading.py",
    "tests/test_activity_answers.py",
)


def longest_first(scopes: list[str]) -> list[str]:
    """The work units (file paths, or test ids of SPREAD_PER_TEST files) with LONGEST_FIRST's in front."""
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    listed = [s for s in scopes if s.split("::", 1)[0] in rank]
    listed.sort(key=lambda s: rank[s.split("::", 1)[0]])  # stable: a file's tests keep their order
    return listed + [s for s in scopes if s.split("::", 1)[0] not in rank]


def pytest_xdist_make_scheduler(config, log):
    """loadfile, except that SPREAD_PER_TEST files go test by test and LONGEST_FIRST's files go first."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SpreadScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return nodeid if path.endswith(SPREAD_PER_TEST) else path

        def _assign_work_unit(self, node) -> None:  # the first call finds the whole queue built
            if not getattr(self, "_reordered", False):
                self._reordered = True
                for scope in longest_first(list(self.workqueue)):
                    self.workqueue.move_to_end(scope)
            super()._assign_work_unit(node)

    return SpreadScheduling(config, log)


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected what they will
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out nbval's items for each notebook that a selected `stored_outputs` browser test runs and
    judges by strict nbval's rules (tests/stored_outputs.py): one execution serves both checks. Where the
    browser tests cannot run (no Chromium), they skip and nbval keeps its items."""
    from browser.chromium import chromium_problem

    judged = {mark.args[0] for i in items if (mark := i.get_closest_marker("stored_outputs"))}
    if not judged or chromium_problem():
        return
    root = Path(config.rootpath)
    left_out = [
        i
        for i in items
        if type(i).__name__ == "IPyNbCell" and Path(i.path).relative_to(root).as_posix() in judged
    ]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        gone = set(left_out)
        items[:] = [i for i in items if i not in gone]
