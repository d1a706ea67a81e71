"""Shared test configuration."""

# Fixture notebooks are inputs to tests (some fail on purpose); nbval must not collect them.
collect_ignore_glob = ["fixtures/*", "**/fixtures/*"]


# Files whose tests are long and independent: under `--dist loadfile` each of their tests is its own
# unit, so the workers share them as they finish (every other file stays whole on one worker, which
# its module-scoped fixtures, e.g. one grading run for the whole file, need). xdist's own
# `xdist_group` cannot do this here: with pytest 9 it no longer renames the test ids it groups by.
SPREAD_PER_TEST = ("tests/browser/test_browser_notebooks.py",)


def pytest_xdist_make_scheduler(config, log):
    """loadfile, except that the tests of SPREAD_PER_TEST files are scheduled one by one."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SpreadScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return nodeid if path.endswith(SPREAD_PER_TEST) else path

    return SpreadScheduling(config, log)
