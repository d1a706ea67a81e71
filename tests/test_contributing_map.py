"""CONTRIBUTING.md's map of where to change what names only files and folders that exist."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _map_rows() -> list[str]:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split("### Where to change what", 1)[1].split("\n### ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ") and "---" not in line][1:]


def _paths(row: str) -> list[str]:
    edit = row.split("|")[2]
    names = re.findall(r"`([^`]+)`", edit)
    folder = ""
    paths = []
    for name in names:
        if "/" in name:
            folder = name if name.endswith("/") else name.rsplit("/", 1)[0] + "/"
            paths.append(name)
        elif name.endswith(".py"):  # a bare file name belongs to the folder named before it
            paths.append(folder + name)
    return paths


def test_the_map_has_a_row_for_each_thing_a_newcomer_changes():
    rows = _map_rows()
    for topic in ("a lesson", "an activity", "a bug of the challenge", "a grader output", "a runner report"):
        assert any(row.startswith(f"| {topic}") for row in rows), topic


def test_every_path_in_the_map_exists():
    missing = []
    for row in _map_rows():
        for path in _paths(row):
            lesson = path.replace("NN_topic", "00_mental_model").replace("NN", "00")
            # NAME: a command of either part (a learner's `learn`, an instructor's `grade`)
            if not any((ROOT / lesson.replace("NAME", name)).exists() for name in ("learn", "grade")):
                missing.append(path)
    assert not missing, f"CONTRIBUTING.md names what the tree does not have: {missing}"
