"""The xdist order of tests/conftest.py: the minutes-long files first, the rest as xdist had them."""

from __future__ import annotations

from pathlib import Path

from conftest import LONGEST_FIRST, SPREAD_PER_TEST, longest_first

ROOT = Path(__file__).resolve().parent.parent


def test_the_longest_files_go_first_in_their_listed_order_and_the_rest_keep_theirs():
    scopes = [
        "tests/test_a.py",
        LONGEST_FIRST[1],
        "notebooks/00_x.ipynb",
        LONGEST_FIRST[0],
        "tests/test_b.py",
    ]
    assert longest_first(scopes) == [
        LONGEST_FIRST[0],
        LONGEST_FIRST[1],
        "tests/test_a.py",
        "notebooks/00_x.ipynb",
        "tests/test_b.py",
    ]


def test_a_listed_file_spread_test_by_test_goes_first_with_all_its_tests():
    spread = f"{LONGEST_FIRST[2]}::test_one", f"{LONGEST_FIRST[2]}::test_two"
    assert longest_first(["tests/test_a.py", *spread]) == [*spread, "tests/test_a.py"]


def test_every_named_file_exists():
    missing = [p for p in (*LONGEST_FIRST, *SPREAD_PER_TEST) if not (ROOT / p).is_file()]
    assert not missing, f"tests/conftest.py names files that are gone: {missing}"
