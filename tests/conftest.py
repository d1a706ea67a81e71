"""Shared test configuration."""

# Fixture notebooks are inputs to tests (some fail on purpose); nbval must not collect them.
collect_ignore_glob = ["fixtures/*", "**/fixtures/*"]
