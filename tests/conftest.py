"""Shared test configuration."""

# Fixture notebooks are inputs to tests (some fail on purpose); nbval must not collect them.
collect_ignore_glob = ["fixtures/*", "**/fixtures/*"]


# Files whose tests are long and independent: under `--dist loadfile` each of their tests is its own
# unit, so the workers share them as they finish (every other file stays whole on one worker, which
# its module-scoped fixtures, e.g. one grading run for the whole file, need). xdist's own
# `xdist_group` cannot do this here: with pytest 9 it no longer renames the test ids it groups by.
SPREAD_PER_TEST = ("tests/browser/test_browser_notebooks.py",)

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
